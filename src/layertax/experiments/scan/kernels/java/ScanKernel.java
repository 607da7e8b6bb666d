// scan, Java: an InputStream read into 64 KiB with a byte loop, a MappedByteBuffer
// from FileChannel.map read byte by byte, and BufferedReader.readLine (Latin-1,
// so every byte is one char whatever the file holds: the count stays exact).
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

public final class ScanKernel {
    static final long CHUNK = 1L << 30;   // a MappedByteBuffer holds at most 2 GiB

    static final class Input {
        Path path;
        long size, expect, got = -1;
        byte[] buf = new byte[64 << 10];
        List<MappedByteBuffer> maps = new ArrayList<>();
    }

    interface Pass { long count(Input in) throws Exception; }

    static long env(String name) {
        String v = System.getenv(name);
        if (v == null) throw new IllegalStateException(name + " is not set: scan kernels run under `layertax run scan`");
        return Long.parseLong(v);
    }

    static boolean isCg(int b) { return b == 'c' || b == 'C' || b == 'g' || b == 'G'; }

    static Harness.Case<Input> scan(String name, String description, boolean mapped, Pass pass) {
        return new Harness.Case<>() {
            public String name() { return name; }
            public String description() { return description; }
            public int opsPerIter() { return 1; }

            public Input setup(String dir) throws Exception {
                String p = System.getenv("LAYERTAX_SCAN_FILE");
                if (p == null) throw new IllegalStateException("LAYERTAX_SCAN_FILE is not set: scan kernels run under `layertax run scan`");
                Input in = new Input();
                in.path = Path.of(p);
                in.size = env("LAYERTAX_SCAN_BYTES");
                in.expect = env("LAYERTAX_SCAN_COUNT");
                if (Files.size(in.path) != in.size) throw new IllegalStateException(p + " changed size");
                if (mapped) {
                    try (FileChannel ch = FileChannel.open(in.path, StandardOpenOption.READ)) {
                        for (long at = 0; at < in.size; at += CHUNK)
                            in.maps.add(ch.map(FileChannel.MapMode.READ_ONLY, at, Math.min(CHUNK, in.size - at)));
                    }
                }
                return in;
            }

            public void run(Input in, long n) throws Exception {
                for (long i = 0; i < n; i++) in.got = pass.count(in);
            }

            public void verify(Input in) {
                if (in.got != in.expect)
                    throw new IllegalStateException("counted " + in.got + " C/G/c/g bytes, expected " + in.expect);
            }

            public void teardown(Input in) { }
        };
    }

    public static void main(String[] args) {
        List<Harness.Case<Input>> cases = List.of(
            scan("java-read", "FileInputStream.read 64 KiB, byte loop", false, in -> {
                long n = 0;
                try (FileInputStream s = new FileInputStream(in.path.toFile())) {
                    int got;
                    while ((got = s.read(in.buf)) > 0)
                        for (int i = 0; i < got; i++) if (isCg(in.buf[i])) n++;
                }
                return n;
            }),
            scan("java-mmap", "FileChannel.map, MappedByteBuffer.get(i) per byte", true, in -> {
                long n = 0;
                for (MappedByteBuffer m : in.maps) {
                    int limit = m.limit();
                    for (int i = 0; i < limit; i++) if (isCg(m.get(i))) n++;
                }
                return n;
            }),
            scan("java-lines", "BufferedReader.readLine (Latin-1), a String per line", false, in -> {
                long n = 0;
                try (BufferedReader r = new BufferedReader(new InputStreamReader(
                        new FileInputStream(in.path.toFile()), StandardCharsets.ISO_8859_1))) {
                    String line;
                    while ((line = r.readLine()) != null)
                        for (int i = 0; i < line.length(); i++) if (isCg(line.charAt(i))) n++;
                }
                return n;
            }));
        Harness.main("scan-java", cases, args, 1);
    }
}
