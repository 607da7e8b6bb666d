// The message through System.out: the JVM encodes its UTF-16 strings in the charset of
// System.out, which Java 17 takes from file.encoding (from the locale unless given) and
// Java 19+ from stdout.encoding; characters that charset cannot hold become '?'.
public final class Show {
    private static final String[] LINES = {
        "ascii: Hello, world\n",
        "latin: caf\u00e9, na\u00efve, \u00c6r\u00f8sk\u00f8bing\n",
        "chinese: \u4e2d\u6587\u8f93\u51fa\n",
        "emoji: \ud83d\ude00\n",
        "end: the last line, in ASCII\n",
    };

    public static void main(String[] args) {
        for (String line : LINES) {
            System.out.print(line);
        }
        System.out.flush();
    }
}
