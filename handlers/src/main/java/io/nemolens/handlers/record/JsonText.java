package io.nemolens.handlers.record;

/** JSON string quoting, shared by everything here that writes JSON text. */
public final class JsonText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    /** Appends {@code s} as a quoted JSON string: quotes, backslashes and control characters escaped. */
    public static void appendQuoted(StringBuilder sb, String s) {
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
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
