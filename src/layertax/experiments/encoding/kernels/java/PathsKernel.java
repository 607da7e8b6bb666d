// encoding: Java's path calls. Strings are UTF-16; where the conversion to the
// platform's bytes happens depends on the API: java.io.File keeps the String
// and converts it in native code on every call (JNU_GetStringPlatformChars);
// java.nio's UnixPath converts once, when the Path is made, and keeps the bytes.
// So the rows are: File (converted per call), a Path made once (not converted),
// and a Path made from the String per call (the conversion, done in Java).
// Java has no getcwd: user.dir is read once at start-up and cannot change.
// A JVM cannot chdir, so readlink reads the link by its absolute path.
// The names match classic.c and encoding_py.py (ASCII and non-ASCII).
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

public final class PathsKernel {
    static final String[] ASCII = {"workdir-ascii", "target-file.bin", "link-name"};
    static final String[] NONASCII = {"工作目录-каталог-é", "目标文件-цель.bin", "链接-ссылка"};

    static final class Place {
        Path home, target, link;
        String targetString, linkString;
        File targetFile;
        boolean isFile;
        Object got;
    }

    interface Loop { void run(Place p, long n) throws Exception; }
    interface Check { void verify(Place p) throws Exception; }

    static Place place(String dir, boolean nonascii) throws Exception {
        if (dir == null) throw new IllegalStateException("--dir is required: the cases create a directory to stand in");
        if (nonascii && !"UTF-8".equals(System.getProperty("sun.jnu.encoding")))
            throw new Harness.Skip("the JVM's path encoding is " + System.getProperty("sun.jnu.encoding")
                                   + ", not UTF-8 (run under a UTF-8 locale)");
        String[] names = nonascii ? NONASCII : ASCII;
        Place p = new Place();
        p.home = Files.createDirectory(Path.of(dir, names[0])).toRealPath();
        p.target = Files.createFile(p.home.resolve(names[1]));
        p.link = Files.createSymbolicLink(p.home.resolve(names[2]), p.target);
        p.targetString = p.target.toString();
        p.linkString = p.link.toString();
        p.targetFile = new File(p.targetString);
        return p;
    }

    static void leave(Place p) {
        for (Path f : new Path[] {p.link, p.target, p.home}) {
            try { Files.deleteIfExists(f); } catch (Exception e) { /* the engine removes the directory anyway */ }
        }
    }

    static Harness.Case<Place> kase(String name, String description, boolean nonascii, Loop loop, Check check) {
        String suffix = nonascii ? "-nonascii" : "";
        String where = nonascii ? ", non-ASCII path" : "";
        return new Harness.Case<>() {
            public String name() { return name + suffix; }
            public String description() { return description + where; }
            public int opsPerIter() { return 1; }
            public Place setup(String dir) throws Exception { return place(dir, nonascii); }
            public void run(Place p, long n) throws Exception { loop.run(p, n); }
            public void verify(Place p) throws Exception { check.verify(p); }
            public void teardown(Place p) { leave(p); }
        };
    }

    static void isRegular(Place p) {
        if (!p.isFile) throw new IllegalStateException("stat of " + p.targetString + " is not the regular file set up");
    }

    static void linksToTarget(Place p) {
        if (!p.target.toString().equals(p.got.toString()))
            throw new IllegalStateException("readlink gave " + p.got + ", not " + p.target);
    }

    public static void main(String[] args) {
        List<Harness.Case<Place>> cases = new ArrayList<>();
        for (boolean nonascii : new boolean[] {false, true}) {
            cases.add(kase("java-stat-file", "File.isFile(): the String converted on every call", nonascii, (p, n) -> {
                File f = p.targetFile;
                for (long i = 0; i < n; i++) p.isFile = f.isFile();
            }, PathsKernel::isRegular));
            cases.add(kase("java-stat-path", "Files.readAttributes(Path made once): bytes kept, no conversion", nonascii, (p, n) -> {
                Path t = p.target;
                for (long i = 0; i < n; i++) p.isFile = Files.readAttributes(t, BasicFileAttributes.class).isRegularFile();
            }, PathsKernel::isRegular));
            cases.add(kase("java-stat-path-of-string", "Files.readAttributes(Path.of(String)): converted per call", nonascii, (p, n) -> {
                String t = p.targetString;
                for (long i = 0; i < n; i++) p.isFile = Files.readAttributes(Path.of(t), BasicFileAttributes.class).isRegularFile();
            }, PathsKernel::isRegular));
            cases.add(kase("java-readlink-path", "Files.readSymbolicLink(Path made once), result kept as a Path", nonascii, (p, n) -> {
                Path l = p.link;
                for (long i = 0; i < n; i++) p.got = Files.readSymbolicLink(l);
            }, PathsKernel::linksToTarget));
            cases.add(kase("java-readlink-string", "Files.readSymbolicLink(Path.of(String)).toString(): both ways converted",
                           nonascii, (p, n) -> {
                String l = p.linkString;
                for (long i = 0; i < n; i++) p.got = Files.readSymbolicLink(Path.of(l)).toString();
            }, PathsKernel::linksToTarget));
        }
        Harness.main("encoding-paths-java", cases, args, 20_000);
    }
}
