// The probe kernel in Java (tests/test_protocol_conformance.py): "count" counts and checks its
// count, "wrong" is always off by one and must be refused, "skip" cannot run here.
import java.util.List;

public final class ProbeKernel {
    static final class Counter { long n, expect; }

    static Harness.Case<Counter> probe(String name, String description, int ops, boolean wrong, boolean skip) {
        return new Harness.Case<>() {
            public String name() { return name; }
            public String description() { return description; }
            public int opsPerIter() { return ops; }
            public Counter setup(String dir) throws Exception {
                if (skip) throw new Harness.Skip("feature X is not available here");
                return new Counter();
            }
            public void run(Counter c, long iters) {
                for (long i = 0; i < iters; i++) c.n++;
                c.expect += iters;
                if (wrong) c.n--;
            }
            public void verify(Counter c) {
                if (c.n != c.expect) throw new IllegalStateException("wrong result: expected " + c.expect + ", got " + c.n);
            }
            public void teardown(Counter c) {}
        };
    }

    public static void main(String[] args) {
        List<Harness.Case<Counter>> cases = List.of(
            probe("count", "counts to iters and checks the count", 3, false, false),
            probe("wrong", "always one short: a wrong answer", 1, true, false),
            probe("skip", "cannot run here", 1, false, true));
        Harness.main("probe-java", cases, args, 0);
    }
}
