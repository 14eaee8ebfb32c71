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
 * conform-agent-java: an agent-role implementation of the stream-json control protocol v1,
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
    private String model = DEFAULT_MODEL;
    private String mode = "default";

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
                b.append(c).append(s.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                b.append('\uFFFD'); // a lone surrogate has no UTF-8 form
            } else if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xAD || (c >= 0x200B && c <= 0x200F)
                    || (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x2064)
                    || (c >= 0x2066 && c <= 0x206F) || c == 0xFEFF) {
                // Like the CLI: controls, the line separators and common format characters escaped.
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }

    static void write(StringBuilder b, Object v) {
        if (v == null) {
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

    void emit(Obj frame) throws IOException {
        StringBuilder b = new StringBuilder(256);
        write(b, frame);
        b.append('\n');
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    void success(Object rid, Obj body, Obj extra) throws IOException {
        Obj r = obj().with("subtype", "success").withOpt("request_id", rid);
        if (body != null) r.put("response", body);
        if (extra != null) r.putAll(extra);
        emit(obj().with("type", "control_response").with("response", r));
    }

    void error(Object rid, String msg, String code, boolean withModel) throws IOException {
        Obj r = obj().with("subtype", "error").withOpt("request_id", rid).with("error", msg);
        if (code != null) r.put("error_code", code);
        if (withModel) r.put("model", model);
        emit(obj().with("type", "control_response").with("response", r));
    }

    /** Handles one input line (without its line terminator). */
    @SuppressWarnings("unchecked")
    void line(String raw) throws IOException, Fatal {
        String line = jsTrim(raw);
        if (line.isEmpty()) return;
        Object msg;
        try {
            msg = parse(line);
        } catch (IOException | StackOverflowError e) { // Jackson's JsonProcessingException is an IOException
            throw parseError(line, "SyntaxError");
        }
        if (msg == null) throw parseError(line, "TypeError"); // null.type throws in the CLI
        if (!(msg instanceof Map)) return; // scalars and arrays are ignored
        Map<String, Object> m = (Map<String, Object>) msg;
        // control_response, control_cancel_request and unknown types get no reply.
        if (!"control_request".equals(m.get("type"))) return;
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
        body.with("hook_on_failure_supported", true).with("capabilities", list());
        success(rid, body, obj().with("pending_permission_requests", list())
                .with("pending_user_dialog_requests", list()));
    }

    void getContextUsage(Object rid) throws IOException {
        double max = 1_000_000;
        success(rid, obj()
                .with("categories", list(obj().with("name", "Free space").with("tokens", max)))
                .with("totalTokens", 0.0)
                .with("maxTokens", max)
                .with("rawMaxTokens", max)
                .with("percentage", 0.0)
                .with("gridRows", list())
                .with("model", model), null);
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
        Thread t = new Thread(null, () -> {
            try {
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

    static void run() throws IOException {
        InputStream in = System.in;
        OutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);
        Main agent = new Main(out);
        ByteArrayOutputStream line = new ByteArrayOutputStream(1 << 16);
        byte[] buf = new byte[1 << 16];
        boolean eof = false;
        while (!eof) {
            int n = in.read(buf);
            int start = 0;
            if (n < 0) {
                eof = true;
                n = 0;
            }
            for (int i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                    line.write(buf, start, i - start);
                    handle(agent, line);
                    start = i + 1;
                }
            }
            line.write(buf, start, n - start);
            if (eof && line.size() > 0) handle(agent, line);
        }
        out.flush();
    }

    private static void handle(Main agent, ByteArrayOutputStream line) throws IOException {
        String text = decodeUtf8(line.toByteArray(), line.size());
        line.reset();
        try {
            agent.line(text);
        } catch (Fatal f) {
            agent.out.flush();
            System.err.println(f.getMessage());
            System.err.flush();
            System.exit(1);
        }
    }
}
