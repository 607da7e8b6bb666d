// scan, C++17: the classic's line readers over an mmap'd file. Both find each line
// with memchr and count it with the same scalar loop; one hands the line out as a
// std::string_view into the mapping, the other copies it into a std::string (the
// article's mmap_line_reader before string_view). A third reads with std::getline
// from a std::ifstream, the idiomatic copying reader.
#include "harness.h"
#include "scan_input.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <string_view>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// Hands out the lines of a buffer one at a time, without copying them.
class LineReader {
  public:
    LineReader(const char *begin, size_t size) : cur_(begin), end_(begin + size) {}
    bool next(std::string_view &line)
    {
        if (cur_ == end_)
            return false;
        const char *nl = static_cast<const char *>(std::memchr(cur_, '\n', static_cast<size_t>(end_ - cur_)));
        const char *stop = nl ? nl : end_;
        line = std::string_view(cur_, static_cast<size_t>(stop - cur_));
        cur_ = nl ? nl + 1 : end_;
        return true;
    }

  private:
    const char *cur_, *end_;
};

template <typename Text> uint64_t count_line(const Text &line)
{
    return count_plain(reinterpret_cast<const unsigned char *>(line.data()), line.size());
}

enum class Way { View, Copy, Getline };

struct State {
    scan_input in{};
    Way way = Way::View;
    const char *map = nullptr;
    std::ifstream stream;
    uint64_t got = 0;
};

int setup(lt_ctx *ctx)
{
    auto *s = new State;
    ctx->state = s;
    int rc = scan_input_get(ctx, &s->in);
    if (rc != LT_OK)
        return rc;
    ctx->bytes_per_op = s->in.bytes;
    std::string_view name(ctx->case_name);
    if (name == "cpp-lines-view")
        s->way = Way::View;
    else if (name == "cpp-lines-copy")
        s->way = Way::Copy;
    else if (name == "cpp-getline")
        s->way = Way::Getline;
    else
        return lt_fail(ctx, LT_FAIL, "unknown case %s", ctx->case_name);
    if (s->way == Way::Getline) {
        s->stream.open(s->in.path, std::ios::binary);
        if (!s->stream)
            return lt_fail(ctx, LT_FAIL, "cannot open %s", s->in.path);
        return LT_OK;
    }
    if (s->in.bytes == 0)
        return LT_OK;
    int fd = open(s->in.path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lt_fail(ctx, LT_FAIL, "open %s: %s", s->in.path, std::strerror(errno));
    void *m = mmap(nullptr, s->in.bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return lt_fail(ctx, LT_FAIL, "mmap %s: %s", s->in.path, std::strerror(errno));
    s->map = static_cast<const char *>(m);
    return LT_OK;
}

uint64_t pass(State *s)
{
    uint64_t count = 0;
    if (s->way == Way::Getline) {
        s->stream.clear();
        s->stream.seekg(0);
        std::string line;
        while (std::getline(s->stream, line))
            count += count_line(line);
        return count;
    }
    LineReader reader(s->map, s->map ? s->in.bytes : 0);
    std::string_view view;
    while (reader.next(view)) {
        if (s->way == Way::View) {
            count += count_line(view);
        } else {
            std::string line(view);  // the copy the string_view reader saves
            count += count_line(line);
        }
    }
    return count;
}

int run(lt_ctx *ctx, uint64_t iters)
{
    auto *s = static_cast<State *>(ctx->state);
    for (uint64_t i = 0; i < iters; i++)
        s->got = pass(s);
    return LT_OK;
}

int verify(lt_ctx *ctx)
{
    auto *s = static_cast<State *>(ctx->state);
    return scan_check(ctx, &s->in, s->got);
}

void teardown(lt_ctx *ctx)
{
    auto *s = static_cast<State *>(ctx->state);
    if (!s)
        return;
    if (s->map)
        munmap(const_cast<char *>(s->map), s->in.bytes);
    delete s;
}

const lt_case cases[] = {
    {"cpp-lines-view", "C++17 mmap line reader returning std::string_view", 1, setup, run, verify, teardown},
    {"cpp-lines-copy", "C++17 mmap line reader copying each line into a std::string", 1, setup, run, verify,
     teardown},
    {"cpp-getline", "std::getline from a std::ifstream into a std::string", 1, setup, run, verify, teardown},
};

}  // namespace

int main(int argc, char **argv)
{
    return lt_main(argc, argv, "scan-cpp", cases, LT_COUNT(cases));
}
