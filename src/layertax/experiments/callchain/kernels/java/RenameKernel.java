// callchain: one file renamed to a second name and back through Java's layers:
// Files.move (which checks the target with lstat first unless ATOMIC_MOVE is
// given), Files.move with ATOMIC_MOVE, and the old File.renameTo. File keeps its
// path as a UTF-16 String and converts it in native code on every call; a Path
// (UnixPath) converts once, when it is made, and Files.move reuses those bytes.
import java.io.File;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.List;

public final class RenameKernel {
    static final byte[] MARKER = "layertax callchain marker\n".getBytes();

    static final class Pair {
        Path a, b;
        File fa, fb;
        Object inode;
    }

    interface Loop { void run(Pair p, long n) throws Exception; }

    static Harness.Case<Pair> rename(String name, String description, Loop loop) {
        return new Harness.Case<>() {
            public String name() { return name; }
            public String description() { return description; }
            public int opsPerIter() { return 2; }

            public Pair setup(String dir) throws Exception {
                if (dir == null) throw new IllegalStateException("--dir is required: rename cases work only in a private directory");
                Pair p = new Pair();
                p.a = Path.of(dir, "layertax-file-a");
                p.b = Path.of(dir, "layertax-file-b");
                Files.write(p.a, MARKER, java.nio.file.StandardOpenOption.CREATE_NEW);
                if (Files.exists(p.b, LinkOption.NOFOLLOW_LINKS)) throw new IllegalStateException(p.b + " already exists");
                p.fa = p.a.toFile();
                p.fb = p.b.toFile();
                p.inode = Files.readAttributes(p.a, BasicFileAttributes.class).fileKey();
                return p;
            }

            public void run(Pair p, long n) throws Exception { loop.run(p, n); }

            public void verify(Pair p) throws Exception {
                if (!Files.exists(p.a, LinkOption.NOFOLLOW_LINKS)) throw new IllegalStateException("after the loop " + p.a + " is missing");
                if (!p.inode.equals(Files.readAttributes(p.a, BasicFileAttributes.class).fileKey()))
                    throw new IllegalStateException(p.a + " is a different file");
                if (Files.exists(p.b, LinkOption.NOFOLLOW_LINKS)) throw new IllegalStateException("after the loop " + p.b + " still exists");
                if (!Arrays.equals(Files.readAllBytes(p.a), MARKER)) throw new IllegalStateException(p.a + " lost its contents");
            }

            public void teardown(Pair p) {
                p.fa.delete();
                p.fb.delete();
            }
        };
    }

    public static void main(String[] args) {
        List<Harness.Case<Pair>> cases = List.of(
            rename("java-files-move", "Files.move(a, b): lstat of both paths, then rename", (p, n) -> {
                for (long i = 0; i < n; i++) {
                    Files.move(p.a, p.b);
                    Files.move(p.b, p.a);
                }
            }),
            rename("java-files-move-atomic", "Files.move(a, b, ATOMIC_MOVE): rename only", (p, n) -> {
                for (long i = 0; i < n; i++) {
                    Files.move(p.a, p.b, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(p.b, p.a, StandardCopyOption.ATOMIC_MOVE);
                }
            }),
            rename("java-file-renameto", "java.io.File.renameTo (returns false instead of throwing)", (p, n) -> {
                for (long i = 0; i < n; i++) {
                    if (!p.fa.renameTo(p.fb)) throw new IllegalStateException("a -> b: renameTo returned false");
                    if (!p.fb.renameTo(p.fa)) throw new IllegalStateException("b -> a: renameTo returned false");
                }
            }));
        Harness.main("callchain-rename-java", cases, args, 10_000);
    }
}
