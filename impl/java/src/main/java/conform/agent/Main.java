package conform.agent;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * conform-agent-java: an agent-role implementation of the stream-json control protocol v1 and v2
 * ({@link V2}),
 * written from the conform suite (schemas/control.v1.json, the vectors, the golden files,
 * COMPATIBILITY.md and impl/claude-code/OBSERVED.md).
 *
 * <p>Reads JSON lines on stdin and writes one control_response line per control_request on
 * stdout, with the JavaScript value semantics the Claude Code CLI shows: every number is a
 * binary64 value, the last of duplicate member names wins, invalid UTF-8 becomes U+FFFD, and
 * a few malformed lines are fatal (exit status 1 and one line on stderr).
 *
 * <p>JSON values are plain Java objects: {@code Map<String,Object>} (insertion-ordered),
 * {@code List<Object>}, {@code String}, {@code Double}, {@code Boolean} and {@code null}.
 */
public final class Main {
    static final String VERSION = "0.1.0";
    static final String BUILD_TIME = "2026-12-01T00:00:00Z";
    static final String OLDEST_DESKTOP_SDK = "0.0.0";
    static final String DEFAULT_MODEL = "claude-opus-5-5";
    static final String PERMISSION_MODES = "acceptEdits, auto, bypassPermissions, default, dontAsk, plan";

    /** A line that makes the process exit with status 1, like the CLI. */
    static final class Fatal extends Exception {
        Fatal(String message) {
            super(message, null, false, false);
        }
    }

    private final OutputStream out;
    String model = DEFAULT_MODEL;
    String mode = "default";

    Main(OutputStream out) {
        this.out = out;
    }

    // ------------------------------------------------------------------------------------
    // JavaScript semantics
    // ------------------------------------------------------------------------------------

    /** Number.prototype.toString() (ECMAScript Number::toString, radix 10). */
    static String jsNumber(double x) {
        if (Double.isNaN(x)) return "NaN";
        if (Double.isInfinite(x)) return x > 0 ? "Infinity" : "-Infinity";
        if (x == 0) return "0"; // also -0
        boolean neg = x < 0;
        double a = Math.abs(x);
        String digits = null;
        int n = 0; // the decimal point sits after the first n digits
        BigDecimal exact = new BigDecimal(a);
        for (int p = 1; p <= 17 && digits == null; p++) {
            // The shortest digit string that reads back as a; of two, the closer (then the even).
            BigDecimal lo = exact.round(new MathContext(p, RoundingMode.FLOOR));
            BigDecimal hi = exact.round(new MathContext(p, RoundingMode.CEILING));
            boolean loOk = lo.doubleValue() == a, hiOk = hi.doubleValue() == a;
            BigDecimal pick;
            if (loOk && hiOk) {
                int c = exact.subtract(lo).compareTo(hi.subtract(exact));
                if (c < 0) pick = lo;
                else if (c > 0) pick = hi;
                else pick = lo.unscaledValue().testBit(0) ? hi : lo;
            } else if (loOk) {
                pick = lo;
            } else if (hiOk) {
                pick = hi;
            } else {
                continue;
            }
            BigDecimal s = pick.stripTrailingZeros();
            digits = s.unscaledValue().toString();
            n = digits.length() - s.scale();
        }
        if (digits == null) { // not reached for a finite double
            return Double.toString(x);
        }
        int k = digits.length();
        StringBuilder b = new StringBuilder();
        if (neg) b.append('-');
        if (k <= n && n <= 21) {
            b.append(digits);
            for (int i = 0; i < n - k; i++) b.append('0');
        } else if (0 < n && n <= 21) {
            b.append(digits, 0, n).append('.').append(digits, n, k);
        } else if (-6 < n && n <= 0) {
            b.append("0.");
            for (int i = 0; i < -n; i++) b.append('0');
            b.append(digits);
        } else {
            b.append(digits.charAt(0));
            if (k > 1) b.append('.').append(digits, 1, k);
            b.append('e').append(n - 1 >= 0 ? '+' : '-').append(Math.abs(n - 1));
        }
        return b.toString();
    }

    /** Marker for a member that is absent (JavaScript undefined). */
    static final Object UNDEFINED = new Object();

    /** String(v) for a JSON value; {@link #UNDEFINED} is "undefined". */
    static String jsString(Object v) {
        if (v == UNDEFINED) return "undefined";
        if (v == null) return "null";
        if (v instanceof String) return (String) v;
        if (v instanceof Boolean) return v.toString();
        if (v instanceof Double) return jsNumber((Double) v);
        if (v instanceof List) {
            StringBuilder b = new StringBuilder();
            List<?> l = (List<?>) v;
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) b.append(',');
                Object e = l.get(i);
                if (e != null) b.append(jsString(e));
            }
            return b.toString();
        }
        return "[object Object]";
    }

    static boolean jsWhitespace(char c) {
        switch (c) {
            case '\t': case '\n': case 0x0B: case '\f': case '\r': case ' ': case 0xA0:
            case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
                return true;
            default:
                return c >= 0x2000 && c <= 0x200A;
        }
    }

    /** String.prototype.trim(): strips ECMAScript WhiteSpace and LineTerminator. */
    static String jsTrim(String s) {
        int i = 0, j = s.length();
        while (i < j && jsWhitespace(s.charAt(i))) i++;
        while (j > i && jsWhitespace(s.charAt(j - 1))) j--;
        return s.substring(i, j);
    }

    // ------------------------------------------------------------------------------------
    // Input: JSON.parse-like reader over Jackson's streaming parser
    // ------------------------------------------------------------------------------------

    /** Deepest nesting of arrays and objects accepted in a line (JSON.parse has no fixed limit). */
    static final int MAX_DEPTH = 100_000;

    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNameLength(Integer.MAX_VALUE)
                    .maxNestingDepth(MAX_DEPTH) // deeper lines are fatal, as in the Rust port
                    .build())
            .build();

    /** Parses one whole line as a single JSON value, or throws (a SyntaxError in the CLI). */
    static Object parse(String text) throws IOException {
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) throw new IOException("empty input");
            Object v = read(p, t);
            if (p.nextToken() != null) throw new IOException("trailing data");
            return v;
        }
    }

    private static Object read(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> m = new LinkedHashMap<>();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    String name = p.currentName();
                    m.put(name, read(p, p.nextToken())); // the last of duplicate names wins
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    l.add(read(p, e));
                }
                return l;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                // Like JSON.parse: the binary64 value nearest the digits (1e400 is Infinity).
                return Double.parseDouble(p.getText());
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw new IOException("unexpected token " + t);
        }
    }

    // ------------------------------------------------------------------------------------
    // Output: JSON.stringify-like writer (numbers in ECMAScript form)
    // ------------------------------------------------------------------------------------

    static void writeString(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); continue;
                case '\\': b.append("\\\\"); continue;
                case '\b': b.append("\\b"); continue;
                case '\t': b.append("\\t"); continue;
                case '\n': b.append("\\n"); continue;
                case '\f': b.append("\\f"); continue;
                case '\r': b.append("\\r"); continue;
                default:
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                char d = s.charAt(++i);
                if (isCf(Character.toCodePoint(c, d))) {
                    b.append(String.format("\\u%04x\\u%04x", (int) c, (int) d));
                } else {
                    b.append(c).append(d);
                }
            } else if (Character.isSurrogate(c)) {
                b.append('\uFFFD'); // a lone surrogate has no UTF-8 form
            } else if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 || isCf(c)) {
                // Like the CLI: controls, the line separators and format characters escaped.
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }

    /**
     * Unicode general category Cf (format), Unicode 15: the set the CLI 2.1.332 escapes on output
     * (impl/claude-code/OBSERVED.md). Java 17's tables are Unicode 13 (no U+0890-0891, U+13439-1343F).
     */
    static final int[][] CF = {
        {0x00AD, 0x00AD}, {0x0600, 0x0605}, {0x061C, 0x061C}, {0x06DD, 0x06DD}, {0x070F, 0x070F},
        {0x0890, 0x0891}, {0x08E2, 0x08E2}, {0x180E, 0x180E}, {0x200B, 0x200F}, {0x202A, 0x202E},
        {0x2060, 0x2064}, {0x2066, 0x206F}, {0xFEFF, 0xFEFF}, {0xFFF9, 0xFFFB}, {0x110BD, 0x110BD},
        {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
        {0xE0020, 0xE007F},
    };

    static boolean isCf(int cp) {
        for (int[] r : CF) if (r[0] <= cp && cp <= r[1]) return true;
        return false;
    }

    /**
     * Error text as the CLI 2.1.332 writes it: every code point of general category Cc, Cf, Cs
     * (lone surrogates), Zl, Zp and Zs other than U+0020 is removed (observed 2026-11-30; vectors
     * canon-echo-server-name, canon-echo-subtype).
     */
    static String stripInvisible(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            int t = Character.getType(cp);
            boolean drop = t == Character.CONTROL || t == Character.SURROGATE || t == Character.FORMAT || isCf(cp)
                    || t == Character.LINE_SEPARATOR || t == Character.PARAGRAPH_SEPARATOR
                    || (t == Character.SPACE_SEPARATOR && cp != 0x20);
            if (!drop) b.appendCodePoint(cp);
        }
        return b.toString();
    }

    /** JSON text written verbatim (a stored reply quoted in a v2 diagnostic). */
    static final class Raw {
        final String text;

        Raw(String text) {
            this.text = text;
        }
    }

    static void write(StringBuilder b, Object v) {
        if (v instanceof Raw) {
            b.append(((Raw) v).text);
        } else if (v == null) {
            b.append("null");
        } else if (v instanceof String) {
            writeString(b, (String) v);
        } else if (v instanceof Boolean) {
            b.append(v.toString());
        } else if (v instanceof Double) {
            double d = (Double) v;
            b.append(Double.isFinite(d) ? jsNumber(d) : "null"); // JSON.stringify(Infinity)
        } else if (v instanceof Number) {
            b.append(jsNumber(((Number) v).doubleValue()));
        } else if (v instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object e : (List<?>) v) {
                if (!first) b.append(',');
                first = false;
                write(b, e);
            }
            b.append(']');
        } else if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) b.append(',');
                first = false;
                writeString(b, (String) e.getKey());
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + v.getClass());
        }
    }

    /** An insertion-ordered object, built fluently. */
    static final class Obj extends LinkedHashMap<String, Object> {
        Obj with(String k, Object v) {
            put(k, v);
            return this;
        }

        /** Sets k only when v is present (not {@link #UNDEFINED}). */
        Obj withOpt(String k, Object v) {
            if (v != UNDEFINED) put(k, v);
            return this;
        }
    }

    static Obj obj() {
        return new Obj();
    }

    static List<Object> list(Object... items) {
        List<Object> l = new ArrayList<>();
        for (Object i : items) l.add(i);
        return l;
    }

    static Object get(Map<String, Object> m, String k) {
        return m.containsKey(k) ? m.get(k) : UNDEFINED;
    }

    // ------------------------------------------------------------------------------------
    // The agent
    // ------------------------------------------------------------------------------------

    /** Writes one frame and returns its text (without LF). */
    String emit(Obj frame) throws IOException {
        StringBuilder b = new StringBuilder(256);
        write(b, frame);
        String text = b.toString();
        b.append('\n');
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        return text;
    }

    void success(Object rid, Obj body, Obj extra) throws IOException {
        Obj r = obj().with("subtype", "success").withOpt("request_id", rid);
        if (body != null) r.put("response", body);
        if (extra != null) r.putAll(extra);
        emit(obj().with("type", "control_response").with("response", r));
    }

    void error(Object rid, String msg, String code, boolean withModel) throws IOException {
        Obj r = obj().with("subtype", "error").withOpt("request_id", rid).with("error", stripInvisible(msg));
        if (code != null) r.put("error_code", code);
        if (withModel) r.put("model", model);
        emit(obj().with("type", "control_response").with("response", r));
    }

    /** Handles one input line (without its line terminator) as v1; true when it was answered. */
    @SuppressWarnings("unchecked")
    boolean line(String raw) throws IOException, Fatal {
        String line = jsTrim(raw);
        if (line.isEmpty()) return false;
        Object msg;
        try {
            msg = parse(line);
        } catch (IOException | StackOverflowError e) { // Jackson's JsonProcessingException is an IOException
            throw parseError(line, "SyntaxError");
        }
        if (msg == null) throw parseError(line, "TypeError"); // null.type throws in the CLI
        if (!(msg instanceof Map)) return false; // scalars and arrays are ignored
        Map<String, Object> m = (Map<String, Object>) msg;
        // control_response, control_cancel_request and unknown types get no reply.
        if (!"control_request".equals(m.get("type"))) return false;
        Object request = m.get("request");
        if (request == null) throw new Fatal("Error: Missing request on control_request");
        Object rid = get(m, "request_id");
        Map<String, Object> req = request instanceof Map ? (Map<String, Object>) request : new LinkedHashMap<>();
        Object subtype = request instanceof Map ? get(req, "subtype") : UNDEFINED;
        String name = subtype instanceof String ? (String) subtype : "";
        switch (name) {
            case "initialize":
                initialize(rid, req);
                break;
            case "interrupt":
                success(rid, obj().with("still_queued", list()), null);
                break;
            case "set_model":
                setModel(rid, req);
                break;
            case "set_permission_mode":
                setPermissionMode(rid, req);
                break;
            case "set_max_thinking_tokens":
                setMaxThinkingTokens(rid, req);
                break;
            case "get_binary_version":
                success(rid, obj().with("version", VERSION).with("buildTime", BUILD_TIME)
                        .with("oldestDesktopSdk", OLDEST_DESKTOP_SDK), null);
                break;
            case "mcp_status":
                success(rid, obj().with("mcpServers", list()), null);
                break;
            case "get_context_usage":
                getContextUsage(rid);
                break;
            case "rewind_files":
                if (Boolean.TRUE.equals(req.get("dry_run"))) {
                    success(rid, obj().with("canRewind", false).with("error", "File rewinding is not enabled."), null);
                } else {
                    error(rid, "File rewinding is not enabled.", null, false);
                }
                break;
            case "mcp_reconnect":
            case "mcp_toggle":
                // No MCP servers are configured, so every name is unknown.
                error(rid, "Server not found: " + jsString(get(req, "serverName")), null, false);
                break;
            case "stop_task":
                success(rid, obj(), null);
                break;
            default:
                error(rid, "Unsupported control request subtype: " + jsString(subtype), "unsupported_request", false);
        }
        return true;
    }

    static Fatal parseError(String line, String kind) {
        return new Fatal("Error parsing streaming input line (type=" + sniffType(line) + ", "
                + line.length() + " chars): " + kind);
    }

    /** The value of the first "type":"..." member in the raw text, or "unknown". */
    static String sniffType(String line) {
        int from = 0;
        while (true) {
            int i = line.indexOf("\"type\"", from);
            if (i < 0) return "unknown";
            int j = i + 6;
            while (j < line.length() && jsWhitespace(line.charAt(j))) j++;
            if (j < line.length() && line.charAt(j) == ':') {
                j++;
                while (j < line.length() && jsWhitespace(line.charAt(j))) j++;
                if (j < line.length() && line.charAt(j) == '"') {
                    int end = line.indexOf('"', j + 1);
                    if (end > 0) return line.substring(j + 1, end);
                }
            }
            from = i + 6;
        }
    }

    void initialize(Object rid, Map<String, Object> req) throws IOException {
        success(rid, sessionBody(req), obj().with("pending_permission_requests", list())
                .with("pending_user_dialog_requests", list()));
    }

    /** v1's initialize payload; v2 puts it under session. */
    Obj sessionBody(Map<String, Object> req) {
        List<Object> models = list(
                obj().with("value", "default").with("resolvedModel", DEFAULT_MODEL)
                        .with("displayName", "Default (recommended)").with("description", "Default (recommended)"),
                obj().with("value", "opus").with("resolvedModel", "claude-opus-5-5")
                        .with("displayName", "Opus").with("description", "Opus"),
                obj().with("value", "sonnet").with("resolvedModel", "claude-sonnet-5-5")
                        .with("displayName", "Sonnet").with("description", "Sonnet"),
                obj().with("value", "haiku").with("resolvedModel", "claude-haiku-5-5")
                        .with("displayName", "Haiku").with("description", "Haiku"));
        Obj body = obj()
                .with("commands", list())
                .with("agents", list())
                .with("output_style", "default")
                .with("available_output_styles", list("default"))
                .with("models", models)
                .with("account", obj())
                .with("pid", (double) ProcessHandle.current().pid())
                .with("claude_code_version", VERSION)
                .with("current_permission_mode", mode);
        if (req.get("hooks") != null) body.put("hooks_applied", true);
        return body.with("hook_on_failure_supported", true).with("capabilities", list());
    }

    void getContextUsage(Object rid) throws IOException {
        success(rid, contextUsageBody(), null);
    }

    Obj contextUsageBody() {
        double max = 1_000_000;
        return obj()
                .with("categories", list(obj().with("name", "Free space").with("tokens", max)))
                .with("totalTokens", 0.0)
                .with("maxTokens", max)
                .with("rawMaxTokens", max)
                .with("percentage", 0.0)
                .with("gridRows", list())
                .with("model", model);
    }

    void setModel(Object rid, Map<String, Object> req) throws IOException {
        Object m = get(req, "model");
        String resolved;
        if (m == UNDEFINED || m == null) {
            resolved = DEFAULT_MODEL;
        } else if (m instanceof String) {
            String s = (String) m;
            if (s.isEmpty()) {
                error(rid, "Model \"(unrecognized model name)\" is not a recognized model id. Run /model to see available models.",
                        "catalog_unknown", true);
                return;
            }
            String base = s.endsWith("[1m]") ? s.substring(0, s.length() - 4) : s;
            switch (base) {
                case "default":
                    resolved = DEFAULT_MODEL;
                    break;
                case "opus":
                case "sonnet":
                case "haiku":
                    resolved = "claude-" + base + "-5-5";
                    break;
                default:
                    // Any other name would need the model catalogue over the network;
                    // offline it cannot be checked (like the CLI without a network).
                    error(rid, "Network error. Please check your internet connection \u00b7 model not changed",
                            "check_unreachable", true);
                    return;
            }
        } else {
            error(rid, "set_model: model must be a string", "invalid_request", true);
            return;
        }
        model = resolved;
        success(rid, obj().with("model", resolved), null);
    }

    void setPermissionMode(Object rid, Map<String, Object> req) throws IOException {
        Object m = req.get("mode");
        if ("acceptEdits".equals(m) || "auto".equals(m) || "default".equals(m) || "dontAsk".equals(m)
                || "plan".equals(m)) {
            mode = (String) m;
            success(rid, obj().with("mode", mode), null);
        } else if ("bypassPermissions".equals(m)) {
            error(rid, "Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions",
                    "bypass_not_launched", false);
        } else {
            error(rid, "Cannot set permission mode: must be one of " + PERMISSION_MODES, "invalid_mode", false);
        }
    }

    void setMaxThinkingTokens(Object rid, Map<String, Object> req) throws IOException {
        Object t = req.get("max_thinking_tokens");
        boolean tokensOk = t == null
                || (t instanceof Double && Double.isFinite((Double) t) && Math.rint((Double) t) == (Double) t);
        Object d = req.get("thinking_display");
        boolean displayOk = d == null || "summarized".equals(d) || "omitted".equals(d) || "highlights".equals(d);
        if (tokensOk && displayOk) {
            success(rid, null, null); // the CLI's success reply has no inner response member here
        } else {
            error(rid, "set_max_thinking_tokens: max_thinking_tokens must be an integer or null and thinking_display must be \"summarized\", \"omitted\", \"highlights\", or null",
                    null, false);
        }
    }

    // ------------------------------------------------------------------------------------
    // Main loop
    // ------------------------------------------------------------------------------------

    /**
     * Decodes UTF-8 as the WHATWG Encoding Standard does (like Node's Buffer#toString and
     * TextDecoder): each maximal ill-formed subsequence becomes one U+FFFD. Java's own decoder
     * replaces some sequences differently (an encoded surrogate ED A0 80 gives one U+FFFD, not three).
     */
    static String decodeUtf8(byte[] bytes, int len) {
        StringBuilder b = new StringBuilder(len);
        int need = 0, seen = 0, cp = 0, lower = 0x80, upper = 0xBF;
        for (int i = 0; i < len; i++) {
            int c = bytes[i] & 0xFF;
            if (need == 0) {
                if (c <= 0x7F) {
                    b.append((char) c);
                } else if (c >= 0xC2 && c <= 0xDF) {
                    need = 1;
                    cp = c & 0x1F;
                } else if (c >= 0xE0 && c <= 0xEF) {
                    if (c == 0xE0) lower = 0xA0;
                    if (c == 0xED) upper = 0x9F;
                    need = 2;
                    cp = c & 0x0F;
                } else if (c >= 0xF0 && c <= 0xF4) {
                    if (c == 0xF0) lower = 0x90;
                    if (c == 0xF4) upper = 0x8F;
                    need = 3;
                    cp = c & 0x07;
                } else {
                    b.append('\uFFFD');
                }
                continue;
            }
            if (c < lower || c > upper) {
                need = seen = cp = 0;
                lower = 0x80;
                upper = 0xBF;
                b.append('\uFFFD');
                i--; // the byte starts over
                continue;
            }
            lower = 0x80;
            upper = 0xBF;
            cp = (cp << 6) | (c & 0x3F);
            if (++seen == need) {
                b.appendCodePoint(cp);
                need = seen = cp = 0;
            }
        }
        if (need != 0) b.append('\uFFFD');
        return b.toString();
    }

    public static void main(String[] args) throws InterruptedException {
        // Deeply nested lines recurse in the reader and the writer: run on a large stack.
        int[] code = {0};
        String role = System.getenv("CONFORM_ROLE");
        boolean host = role != null && role.trim().equals("host");
        Thread t = new Thread(null, () -> {
            try {
                if (host) {
                    code[0] = Host.run(); // the host role (docs/host-role.md): Host.java
                    return;
                }
                run();
            } catch (IOException e) {
                System.err.println("Error reading stdin: " + e.getMessage());
                code[0] = 1;
            }
        }, "agent", 1L << 30);
        t.start();
        t.join();
        System.exit(code[0]);
    }

    /** Reads lines (without LF), keeping at most a given number of bytes of each. */
    static final class LineReader {
        private final InputStream in;
        private final byte[] buf = new byte[1 << 16];
        private int pos, lim;
        private boolean eof;
        final ByteArrayOutputStream line = new ByteArrayOutputStream(1 << 16);
        /** The whole line's length in bytes, without LF. */
        long size;

        LineReader(InputStream in) {
            this.in = in;
        }

        /** Reads the next line, keeping at most cap bytes (cap < 0: all); false at end of input. */
        boolean next(int cap) throws IOException {
            line.reset();
            size = 0;
            boolean any = false;
            while (true) {
                if (pos == lim) {
                    if (eof) return any;
                    int n = in.read(buf);
                    if (n < 0) {
                        eof = true;
                        return any;
                    }
                    pos = 0;
                    lim = n;
                    continue;
                }
                any = true;
                int i = pos;
                while (i < lim && buf[i] != '\n') i++;
                int n = i - pos;
                int keep = cap < 0 ? n : Math.max(0, Math.min(n, cap - line.size()));
                line.write(buf, pos, keep);
                size += n;
                if (i < lim) {
                    pos = i + 1;
                    return true;
                }
                pos = lim;
            }
        }
    }

    /**
     * Does this line start a v2 session? It does when it is a JSON object with a top-level
     * schemaVersion member (any value), or an initialize request that offers protocolVersions.
     * A v1 host sends neither.
     */
    @SuppressWarnings("unchecked")
    static boolean announcesV2(String text) {
        String line = jsTrim(text);
        if (!line.startsWith("{")) return false;
        Object v;
        try {
            v = parse(line);
        } catch (IOException | StackOverflowError e) {
            return false;
        }
        if (!(v instanceof Map)) return false;
        Map<String, Object> m = (Map<String, Object>) v;
        if (m.containsKey("schemaVersion")) return true;
        if (!"control_request".equals(m.get("type")) || !(m.get("request") instanceof Map)) return false;
        Map<String, Object> r = (Map<String, Object>) m.get("request");
        return "initialize".equals(r.get("subtype")) && r.containsKey("protocolVersions");
    }

    /**
     * The session's version when the environment fixes it: conform's runner sets
     * CONFORM_PROTOCOL_VERSION to the suite version under test. "1" or "2" decide before the first
     * line is read; anything else (or unset) gives 0: the first deciding line decides.
     */
    static int pinnedVersion(String value) {
        if (value == null) return 0;
        switch (value.trim()) {
            case "1":
                return 1;
            case "2":
                return 2;
            default:
                return 0;
        }
    }

    /**
     * The main loop; {@code version} is 1 or 2 from the start when CONFORM_PROTOCOL_VERSION fixes
     * it, else 0 until a line decides, then 1 or 2 for the whole session.
     */
    static void run() throws IOException {
        OutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);
        Main agent = new Main(out);
        V2 v2 = new V2(agent);
        int version = pinnedVersion(System.getenv("CONFORM_PROTOCOL_VERSION"));
        LineReader r = new LineReader(System.in);
        // v2 bounds its frames; v1 (like the CLI) reads lines of any length.
        while (r.next(version == 2 ? V2.FRAME_LIMIT + 1 : -1)) {
            byte[] bytes = r.line.toByteArray();
            String text = decodeUtf8(bytes, bytes.length);
            if (version == 0 && announcesV2(text)) version = 2;
            if (version == 2) {
                int code = v2.line(bytes, bytes.length, r.size);
                if (code >= 0) {
                    out.flush();
                    System.exit(code);
                }
                continue;
            }
            try {
                if (agent.line(text)) version = 1;
            } catch (Fatal f) {
                out.flush();
                System.err.println(f.getMessage());
                System.err.flush();
                System.exit(1);
            }
        }
        if (version == 2) v2.finish();
        out.flush();
    }
}
