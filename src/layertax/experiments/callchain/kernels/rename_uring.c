/* callchain: the same rename through io_uring (IORING_OP_RENAMEAT), one operation
 * per submission and in linked batches (the ordering a -> b -> a must hold, so
 * each batch is one chain of IOSQE_IO_LINK'ed entries). */
#define _GNU_SOURCE
#include "file_pair.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_TRIPS 32 /* round trips per submission: 64 renames */

static struct io_uring ring;
static int ring_ready;

static int setup_uring(lt_ctx *ctx)
{
    int rc = io_uring_queue_init(2 * BATCH_TRIPS, &ring, 0);
    if (rc < 0)
        return lt_fail(ctx, LT_SKIP, "io_uring is not available here (io_uring_queue_init: %s)", strerror(-rc));
    ring_ready = 1;
    struct io_uring_probe *probe = io_uring_get_probe_ring(&ring);
    int supported = probe && io_uring_opcode_supported(probe, IORING_OP_RENAMEAT);
    if (probe)
        io_uring_free_probe(probe);
    if (!supported)
        return lt_fail(ctx, LT_SKIP, "this kernel's io_uring has no IORING_OP_RENAMEAT (needs Linux 5.11+)");
    return file_pair_setup(ctx);
}

static void teardown_uring(lt_ctx *ctx)
{
    if (ring_ready)
        io_uring_queue_exit(&ring);
    file_pair_teardown(ctx);
}

/* Queues `count` renames alternating a -> b and b -> a, linked if `link`,
 * submits them, and checks every completion. */
static int submit_renames(lt_ctx *ctx, unsigned count, int link)
{
    for (unsigned k = 0; k < count; k++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        if (!sqe)
            return lt_fail(ctx, LT_FAIL, "submission queue full");
        const char *from = k % 2 ? FP.b : FP.a, *to = k % 2 ? FP.a : FP.b;
        io_uring_prep_renameat(sqe, AT_FDCWD, from, AT_FDCWD, to, 0);
        if (link && k + 1 < count)
            sqe->flags |= IOSQE_IO_LINK;
    }
    int rc = io_uring_submit_and_wait(&ring, count);
    if (rc < 0)
        return lt_fail(ctx, LT_FAIL, "io_uring_submit_and_wait: %s", strerror(-rc));
    int failure = 0;
    for (unsigned k = 0; k < count; k++) {
        struct io_uring_cqe *cqe;
        rc = io_uring_wait_cqe(&ring, &cqe);
        if (rc < 0)
            return lt_fail(ctx, LT_FAIL, "io_uring_wait_cqe: %s", strerror(-rc));
        if (cqe->res < 0 && !failure)
            failure = cqe->res;
        io_uring_cqe_seen(&ring, cqe);
    }
    if (failure)
        return lt_fail(ctx, LT_FAIL, "IORING_OP_RENAMEAT failed: %s", strerror(-failure));
    return LT_OK;
}

static int run_single(lt_ctx *ctx, uint64_t n)
{
    for (uint64_t i = 0; i < 2 * n; i++) {
        /* One rename per submission; the direction alternates. */
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        if (!sqe)
            return lt_fail(ctx, LT_FAIL, "submission queue full");
        io_uring_prep_renameat(sqe, AT_FDCWD, i % 2 ? FP.b : FP.a, AT_FDCWD, i % 2 ? FP.a : FP.b, 0);
        int rc = io_uring_submit_and_wait(&ring, 1);
        struct io_uring_cqe *cqe;
        if (rc < 0 || (rc = io_uring_wait_cqe(&ring, &cqe)) < 0)
            return lt_fail(ctx, LT_FAIL, "io_uring: %s", strerror(-rc));
        int res = cqe->res;
        io_uring_cqe_seen(&ring, cqe);
        if (res < 0)
            return lt_fail(ctx, LT_FAIL, "IORING_OP_RENAMEAT failed: %s", strerror(-res));
    }
    return LT_OK;
}

static int run_batch(lt_ctx *ctx, uint64_t n)
{
    while (n > 0) {
        unsigned trips = n < BATCH_TRIPS ? (unsigned)n : BATCH_TRIPS;
        int rc = submit_renames(ctx, 2 * trips, 1);
        if (rc != LT_OK)
            return rc;
        n -= trips;
    }
    return LT_OK;
}

static const lt_case CASES[] = {
    {"c-uring", "io_uring IORING_OP_RENAMEAT, one per submission", 2, setup_uring, run_single, file_pair_verify, teardown_uring},
    {"c-uring-batch", "io_uring IORING_OP_RENAMEAT, 64 linked per submission", 2, setup_uring, run_batch, file_pair_verify, teardown_uring},
};

int main(int argc, char **argv)
{
    return lt_main(argc, argv, "callchain-rename-uring", CASES, LT_COUNT(CASES));
}
