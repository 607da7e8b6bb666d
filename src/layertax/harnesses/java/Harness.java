// The kernel protocol for Java kernels (docs/method/protocol.md), mirroring native/harness.c.
//
// The build compiles this file with a kernel's own sources. A JVM cannot pin
// itself or change its priority, so the engine does both before exec (the
// whole process inherits them) and the harness reports what it finds in
// /proc. It warms the JIT up with a fixed number of iterations (the same in
// every run, so counting runs can take differences), times with
// System.nanoTime (CLOCK_MONOTONIC), verifies after every sample.
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

public final class Harness {
    private Harness() {}

    /** A setup that cannot run here (missing feature): not an error. */
    public static final class Skip extends Exception {
        public Skip(String why) { super(why); }
    }

    public interface Case<S> {
        String name();
        String description();
        int opsPerIter();
        S setup(String dir) throws Exception;
        void run(S state, long iters) throws Exception;
        void verify(S state) throws Exception;
        void teardown(S state);
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static void emit(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static void problem(String caseName, String key, String msg) {
        emit("{\"case\":" + json(caseName) + "," + json(key) + ":" + json(msg == null ? "" : msg) + "}");
    }

    /** A field of /proc/thread-self/status or /proc/self/status, or "?" if unreadable. */
    static String procStatus(String file, String key) {
        try {
            for (String line : Files.readAllLines(Path.of(file))) {
                if (line.startsWith(key + ":")) return line.substring(key.length() + 1).trim();
            }
        } catch (IOException e) {
            // reported as unknown
        }
        return "?";
    }

    static long[] contextSwitches() {
        try {
            return new long[] {Long.parseLong(procStatus("/proc/thread-self/status", "voluntary_ctxt_switches")),
                               Long.parseLong(procStatus("/proc/thread-self/status", "nonvoluntary_ctxt_switches"))};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static String nice() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return "nice " + f[16];  // field 19 of stat, counted after the command name
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** One timed sample: {ns, voluntary, involuntary context switches}; the switches are -1 if unknown. */
    static <S> long[] timed(Case<S> c, S state, long iters) throws Exception {
        long[] s0 = contextSwitches();
        long t0 = System.nanoTime();
        c.run(state, iters);
        long ns = Math.max(1, System.nanoTime() - t0);
        long[] s1 = contextSwitches();
        c.verify(state);
        boolean known = s0 != null && s1 != null;
        return new long[] {ns, known ? s1[0] - s0[0] : -1, known ? s1[1] - s0[1] : -1};
    }

    static String sampleJson(Case<?> c, long iters, long[] s) {
        String csw = s[1] >= 0 ? ",\"csw_vol\":" + s[1] + ",\"csw_invol\":" + s[2] : "";
        return "{\"case\":" + json(c.name()) + ",\"iters\":" + iters + ",\"ops\":" + iters * c.opsPerIter()
                + ",\"ns\":" + s[0] + csw + "}";
    }

    public static <S> void main(String kernel, List<Case<S>> cases, String[] args, long defaultWarmupIters) {
        String caseName = null, dir = null;
        long samples = 5, minNs = 10_000_000L, iters = 0, warmup = defaultWarmupIters, settleNs = 0;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--raise-priority")) continue;  // done by the engine before exec
                if (i + 1 >= args.length) throw new IllegalArgumentException("missing value for " + a);
                String v = args[++i];
                switch (a) {
                    case "--case" -> caseName = v;
                    case "--dir" -> dir = v;
                    case "--samples" -> samples = Long.parseLong(v);
                    case "--min-sample-ns" -> minNs = Long.parseLong(v);
                    case "--iters" -> iters = Long.parseLong(v);
                    case "--warmup-iters" -> warmup = Long.parseLong(v);
                    case "--settle-ns" -> settleNs = Long.parseLong(v);
                    case "--cpu" -> Long.parseLong(v);  // pinned by the engine before exec
                    default -> throw new IllegalArgumentException("bad option: " + a);
                }
            }
            if (samples < 1 || minNs < 0 || iters < 0 || warmup < 0 || settleNs < 0) throw new IllegalArgumentException("negative value");
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
        Case<S> c = null;
        for (Case<S> x : cases) if (x.name().equals(caseName)) c = x;
        if (c == null) {
            problem(caseName == null ? "" : caseName, "error", "no such case in this kernel");
            System.exit(1);
        }
        S state;
        try {
            state = c.setup(dir);
        } catch (Skip e) {
            problem(c.name(), "skip", e.getMessage());
            System.exit(3);
            return;
        } catch (Exception e) {
            problem(c.name(), "error", "setup: " + e);
            System.exit(1);
            return;
        }
        int code = 0;
        try {
            String cpus = procStatus("/proc/self/status", "Cpus_allowed_list");
            boolean pinned = !cpus.contains(",") && !cpus.contains("-") && !cpus.equals("?");
            long overhead = Long.MAX_VALUE;
            for (int i = 0; i < 2000; i++) overhead = Math.min(overhead, -(System.nanoTime() - System.nanoTime()));
            emit("{\"kernel\":" + json(kernel) + ",\"case\":" + json(c.name()) + ",\"description\":"
                    + json(c.description()) + ",\"language\":\"java\",\"runtime\":"
                    + json(System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"))
                    + ",\"clock\":\"System.nanoTime (CLOCK_MONOTONIC)\",\"clock_res_ns\":1,\"clock_overhead_ns\":"
                    + overhead + ",\"ops_per_iter\":" + c.opsPerIter() + ",\"warmup_iters\":" + warmup
                    + ",\"settle_ns\":" + settleNs
                    + ",\"pinned\":" + pinned + ",\"pin\":" + json("cpus allowed " + cpus + " (set by the engine)")
                    + ",\"priority\":" + json(nice() + " (set by the engine)") + "}");
            if (warmup > 0) timed(c, state, warmup);
            if (iters == 0) {
                iters = 1;
                for (;;) {
                    long ns = timed(c, state, iters)[0];
                    if (ns >= minNs) break;
                    double factor = Math.min(100.0, Math.max(2.0, 1.25 * minNs / ns));
                    iters = (long) (iters * factor) + 1;
                }
            }
            // The JIT's compiler threads go on working for a few hundred ms of a JVM's life, on the
            // CPU its timed thread is pinned to: untimed samples for settleNs first let them finish
            // (docs/method/statistics.md, "Why JIT runtimes' kernels settle").
            for (long spent = 0; spent < settleNs; ) spent += timed(c, state, iters)[0];
            for (long i = 0; i < samples; i++) emit(sampleJson(c, iters, timed(c, state, iters)));
        } catch (Exception e) {
            problem(c.name(), "error", e.toString());
            code = 1;
        } finally {
            c.teardown(state);
        }
        System.exit(code);
    }
}
