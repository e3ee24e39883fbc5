package io.nemolens.handlers.record;

/** JSON string quoting, shared by everything here that writes JSON text. */
final class JsonText {

    private static final String[] ESCAPES = new String[0x20];

    static {
        for (char c = 0; c < 0x20; c++) {
            ESCAPES[c] = String.format("\\u%04x", (int) c);
        }
        ESCAPES['\n'] = "\\n";
        ESCAPES['\r'] = "\\r";
        ESCAPES['\t'] = "\\t";
    }

    private JsonText() {}

    /**
     * How JSON writes {@code c} inside a string, for the characters that must be escaped: the quote,
     * the backslash and the control characters (newline, carriage return and tab by their short
     * escapes, the others as six-character unicode escapes in lowercase hex).
     */
    static String escape(char c) {
        return switch (c) {
            case '"' -> "\\\"";
            case '\\' -> "\\\\";
            default -> {
                if (c >= 0x20) {
                    throw new IllegalArgumentException("needs no escape: " + c);
                }
                yield ESCAPES[c];
            }
        };
    }

    /** Appends {@code s} as a quoted JSON string: quotes, backslashes and control characters escaped. */
    static void appendQuoted(StringBuilder sb, String s) {
        sb.append('"');
        int n = s.length();
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                break;
            }
            i++;
        }
        if (i == n) {
            sb.append(s).append('"');
            return;
        }
        sb.append(s, 0, i);
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                sb.append(escape(c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
