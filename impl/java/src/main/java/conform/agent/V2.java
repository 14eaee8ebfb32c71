package conform.agent;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Control protocol v2 (docs/v2.md, schemas/control.v2.json): negotiation, schemaVersion on every
 * frame, structured errors, idempotent request ids with control_diagnostic receipts, bounded
 * frames, hold/release and cancellation. Written from docs/v2.md and the v2 vectors and golden
 * files. One instance per session; it writes through the {@link Main} agent that owns it.
 */
final class V2 {
    /** Largest line read, in bytes without its LF (1 MiB). */
    static final int FRAME_LIMIT = 1 << 20;
    static final int EXCERPT_BYTES = 256;
    static final Set<String> FRAME_TYPES =
            Set.of("control_request", "control_response", "control_cancel_request", "control_diagnostic");
    static final Set<String> PASS_OVER = Set.of("system", "assistant", "user", "result", "stream_event",
            "control_request_progress", "keep_alive", "rate_limit_event", "tool_progress", "auth_status");

    /** A request id that has been read: its frame's canonical text and terminal reply (null while pending). */
    private static final class Used {
        final String canon;
        String reply;

        Used(String canon) {
            this.canon = canon;
        }
    }

    /** Thrown by the tree builder for input that is JSON but not strict JSON. */
    static final class NotStrict extends IOException {
        NotStrict(String m) {
            super(m, null);
        }
    }

    /** A request outcome that is an error reply. */
    static final class Err extends Exception {
        final String code;

        Err(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    private final Main agent;
    private boolean initialized;
    private final Map<String, Used> used = new HashMap<>();
    /** Pending hold requests, oldest first. */
    private final List<String> pending = new ArrayList<>();

    V2(Main agent) {
        this.agent = agent;
    }

    // ------------------------------------------------------------------------------------
    // Strict JSON: valid UTF-8, no duplicate names, no lone surrogates, exact integers
    // ------------------------------------------------------------------------------------

    static Object parseStrict(String text) throws IOException {
        try (JsonParser p = Main.FACTORY.createParser(text)) {
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
                    String name = checkSurrogates(p.currentName());
                    Object v = read(p, p.nextToken());
                    if (m.containsKey(name)) throw new NotStrict("duplicate member name");
                    m.put(name, v);
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) l.add(read(p, e));
                return l;
            }
            case VALUE_STRING:
                return checkSurrogates(p.getText());
            case VALUE_NUMBER_INT: {
                String lit = p.getText();
                double x = Double.parseDouble(lit);
                if (Math.abs(x) > 9007199254740992.0) {
                    // More significant digits than binary64 holds for this value?
                    String digits = lit.startsWith("-") ? lit.substring(1) : lit;
                    String shortest = Main.jsNumber(Math.abs(x));
                    if (new java.math.BigDecimal(digits).compareTo(new java.math.BigDecimal(shortest)) != 0) {
                        throw new NotStrict("integer not exact in binary64");
                    }
                }
                return x;
            }
            case VALUE_NUMBER_FLOAT:
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

    private static String checkSurrogates(String s) throws NotStrict {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new NotStrict("lone surrogate");
            }
        }
        return s;
    }

    /** Canonical text (members sorted by UTF-16 units, ECMAScript numbers): equal iff the RFC 8785 forms are. */
    @SuppressWarnings("unchecked")
    static Object sorted(Object v) {
        if (v instanceof Map) {
            TreeMap<String, Object> t = new TreeMap<>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) t.put(e.getKey(), sorted(e.getValue()));
            return t;
        }
        if (v instanceof List) {
            List<Object> l = new ArrayList<>();
            for (Object e : (List<Object>) v) l.add(sorted(e));
            return l;
        }
        return v;
    }

    static String canonical(Object v) {
        StringBuilder b = new StringBuilder();
        Main.write(b, sorted(v));
        return b.toString();
    }

    // ------------------------------------------------------------------------------------
    // UTF-8 and excerpts
    // ------------------------------------------------------------------------------------

    /** Length of the valid UTF-8 sequence at b[i] (b holds len bytes), or -1. */
    static int utf8Seq(byte[] b, int i, int len) {
        int c = b[i] & 0xFF;
        int n, lo = 0x80, hi = 0xBF;
        if (c <= 0x7F) return 1;
        else if (c >= 0xC2 && c <= 0xDF) n = 2;
        else if (c == 0xE0) { n = 3; lo = 0xA0; }
        else if (c == 0xED) { n = 3; hi = 0x9F; }
        else if (c >= 0xE1 && c <= 0xEF) n = 3;
        else if (c == 0xF0) { n = 4; lo = 0x90; }
        else if (c >= 0xF1 && c <= 0xF3) n = 4;
        else if (c == 0xF4) { n = 4; hi = 0x8F; }
        else return -1;
        if (i + 1 >= len) return -1;
        int b1 = b[i + 1] & 0xFF;
        if (b1 < lo || b1 > hi) return -1;
        for (int k = 2; k < n; k++) {
            if (i + k >= len) return -1;
            int x = b[i + k] & 0xFF;
            if (x < 0x80 || x > 0xBF) return -1;
        }
        return n;
    }

    static boolean validUtf8(byte[] b, int len) {
        for (int i = 0; i < len; ) {
            int n = utf8Seq(b, i, len);
            if (n < 0) return false;
            i += n;
        }
        return true;
    }

    /**
     * The line's first 256 bytes, less a multi-byte sequence the cut splits, each byte outside a
     * valid UTF-8 sequence as U+FFFD. {@code len} may exceed 256 (to tell a split sequence from an
     * invalid one).
     */
    static String excerpt(byte[] b, int len) {
        int end = Math.min(len, EXCERPT_BYTES);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < end; ) {
            int n = utf8Seq(b, i, len);
            if (n < 0) {
                out.append('\uFFFD');
                i++;
            } else if (i + n <= end) {
                out.append(new String(b, i, n, StandardCharsets.UTF_8));
                i += n;
            } else {
                break; // a valid sequence split by the cut
            }
        }
        return out.toString();
    }

    // ------------------------------------------------------------------------------------
    // Frames
    // ------------------------------------------------------------------------------------

    static String usableId(Object v) {
        return v instanceof String && !((String) v).isEmpty() ? (String) v : null;
    }

    private void replyOk(String rid, Main.Obj body) throws IOException {
        terminal(rid, Main.obj().with("type", "control_response").with("schemaVersion", 2.0).with("response",
                Main.obj().with("subtype", "success").with("request_id", rid).with("response", body)));
    }

    private void replyErr(String rid, String code, String message) throws IOException {
        terminal(rid, Main.obj().with("type", "control_response").with("schemaVersion", 2.0).with("response",
                Main.obj().with("subtype", "error").with("request_id", rid)
                        .with("error", Main.obj().with("code", code).with("message", message))));
    }

    /** Writes the one terminal reply of rid and stores it for replays. */
    private void terminal(String rid, Main.Obj frame) throws IOException {
        String text = agent.emit(frame);
        Used u = used.get(rid);
        if (u != null) u.reply = text;
        pending.remove(rid);
    }

    private void diag(String code, String message, String rid, byte[] line, int len, long size, String reply)
            throws IOException {
        Main.Obj f = Main.obj().with("type", "control_diagnostic").with("schemaVersion", 2.0)
                .with("code", code).with("message", message);
        if (rid != null) f.put("request_id", rid);
        f.with("excerpt", excerpt(line, len)).with("size", (double) size);
        if (reply != null) f.put("reply", new Main.Raw(reply));
        agent.emit(f);
    }

    /**
     * Judges one line in the order of docs/v2.md §7. {@code line} holds {@code len} bytes, at most
     * FRAME_LIMIT+1; {@code size} is the whole line's length without LF. Returns an exit status to
     * stop with, or -1 to go on.
     */
    @SuppressWarnings("unchecked")
    int line(byte[] line, int len, long size) throws IOException {
        // 1. over the limit
        if (size > FRAME_LIMIT) {
            diag("frame_too_large", "line of " + size + " bytes exceeds the 1 MiB frame limit", null, line, len, size, null);
            return -1;
        }
        // 2. blank
        boolean blank = true;
        for (int i = 0; i < len && blank; i++) blank = line[i] == ' ' || line[i] == '\t' || line[i] == '\r';
        if (blank) return -1;
        // 3. a strict-JSON object
        Object v;
        try {
            if (!validUtf8(line, len)) throw new NotStrict("invalid UTF-8");
            v = parseStrict(new String(line, 0, len, StandardCharsets.UTF_8));
        } catch (IOException | StackOverflowError e) {
            diag("malformed_frame", "the line is not strict JSON", null, line, len, size, null);
            return -1;
        }
        if (!(v instanceof Map)) {
            diag("malformed_frame", "the line is not a JSON object", null, line, len, size, null);
            return -1;
        }
        Map<String, Object> m = (Map<String, Object>) v;
        String type = m.get("type") instanceof String ? (String) m.get("type") : null;
        // 4. outside the control channel
        if (type != null && PASS_OVER.contains(type)) return -1;
        boolean isRequest = "control_request".equals(type);
        String rid = usableId(m.get("request_id"));
        // 5. a used request id
        if (isRequest && rid != null) {
            String canon = canonical(m);
            Used u = used.get(rid);
            if (u != null) {
                if (u.canon.equals(canon)) {
                    diag("request_replayed", "retransmission of a request already read; not run again", rid, line, len, size, u.reply);
                } else {
                    diag("duplicate_request_id", "request_id already used by a different request; not run", rid, line, len, size, null);
                }
                return -1;
            }
            used.put(rid, new Used(canon)); // used from here on, whatever the outcome
        }
        // 6. schemaVersion
        Object sv = m.get("schemaVersion");
        if (!(sv instanceof Double && (Double) sv == 2.0)) {
            String msg = "schemaVersion must be 2";
            if (isRequest && rid != null) {
                replyErr(rid, "unsupported_schema_version", msg);
            } else {
                String named = rid;
                if ("control_response".equals(type)) {
                    Object r = m.get("response");
                    named = r instanceof Map ? usableId(((Map<String, Object>) r).get("request_id")) : null;
                }
                diag("unsupported_schema_version", msg, named, line, len, size, null);
            }
            return -1;
        }
        // 7. frame type
        if (type == null || !FRAME_TYPES.contains(type)) {
            diag("unsupported_frame_type", "unknown or missing frame type", null, line, len, size, null);
            return -1;
        }
        switch (type) {
            case "control_diagnostic":
                return -1; // never answered
            case "control_response": {
                // This agent sends no requests: a valid reply names nothing.
                Object r = m.get("response");
                if (!(r instanceof Map) || usableId(((Map<String, Object>) r).get("request_id")) == null) {
                    diag("invalid_request", "control_response without a usable request_id", null, line, len, size, null);
                }
                return -1;
            }
            case "control_cancel_request":
                if (rid == null) {
                    diag("invalid_request", "control_cancel_request without a usable request_id", null, line, len, size, null);
                } else if (pending.contains(rid)) {
                    replyErr(rid, "cancelled", "cancelled by control_cancel_request");
                }
                return -1;
            default:
                // 8. request_id
                if (rid == null) {
                    diag("invalid_request", "control_request without a usable request_id (a non-empty string)", null, line, len, size, null);
                    return -1;
                }
                return request(rid, m.get("request"));
        }
    }

    @SuppressWarnings("unchecked")
    private int request(String rid, Object request) throws IOException {
        // 9. body and subtype
        if (!(request instanceof Map)) {
            replyErr(rid, "invalid_request", "request must be an object");
            return -1;
        }
        Map<String, Object> req = (Map<String, Object>) request;
        Object st = req.get("subtype");
        if (!(st instanceof String) || ((String) st).isEmpty()) {
            replyErr(rid, "invalid_request", "request.subtype must be a non-empty string");
            return -1;
        }
        String subtype = (String) st;
        // 10. initialize first
        if (subtype.equals("initialize")) return initialize(rid, req);
        if (!initialized) {
            replyErr(rid, "not_initialized", "the session is not initialized: send initialize first");
            return -1;
        }
        // 11. the subtype's own rules
        try {
            Main.Obj body = run(rid, subtype, req);
            if (body != null) replyOk(rid, body);
        } catch (Err e) {
            replyErr(rid, e.code, e.getMessage());
        }
        return -1;
    }

    static Err bad(String message) {
        return new Err("invalid_request", message);
    }

    /** The success payload of a request, null while it is pending, or an Err. */
    private Main.Obj run(String rid, String subtype, Map<String, Object> req) throws Err, IOException {
        Object a;
        switch (subtype) {
            case "interrupt":
                a = Main.get(req, "cancel_queued");
                if (a != Main.UNDEFINED && !(a instanceof Boolean)) throw bad("interrupt: cancel_queued must be a boolean");
                return Main.obj().with("still_queued", Main.list());
            case "set_model":
                return setModel(req);
            case "set_permission_mode": {
                Object m = req.get("mode");
                if (!(m instanceof String)) throw bad("set_permission_mode: mode must be a string");
                switch ((String) m) {
                    case "acceptEdits": case "auto": case "default": case "dontAsk": case "plan":
                        agent.mode = (String) m;
                        return Main.obj().with("mode", m);
                    case "bypassPermissions":
                        throw new Err("bypass_not_launched", "Cannot set permission mode to bypassPermissions because the session was not launched with --dangerously-skip-permissions");
                    default:
                        throw new Err("invalid_mode", "Cannot set permission mode: must be one of " + Main.PERMISSION_MODES);
                }
            }
            case "set_max_thinking_tokens": {
                Object t = req.get("max_thinking_tokens");
                boolean tokensOk = t == null || (t instanceof Double && Double.isFinite((Double) t)
                        && Math.rint((Double) t) == (Double) t && (Double) t >= 0);
                Object d = req.get("thinking_display");
                boolean displayOk = d == null || "summarized".equals(d) || "omitted".equals(d) || "highlights".equals(d);
                if (!tokensOk || !displayOk) {
                    throw bad("set_max_thinking_tokens: max_thinking_tokens must be an integer >= 0 or null, thinking_display one of summarized, omitted, highlights or null");
                }
                return Main.obj();
            }
            case "get_binary_version":
                return Main.obj().with("version", Main.VERSION).with("buildTime", Main.BUILD_TIME)
                        .with("oldestDesktopSdk", Main.OLDEST_DESKTOP_SDK);
            case "mcp_status":
                return Main.obj().with("mcpServers", Main.list());
            case "get_context_usage":
                return agent.contextUsageBody();
            case "rewind_files": {
                Object d = Main.get(req, "dry_run"), u = Main.get(req, "user_message_id");
                if (d != Main.UNDEFINED && !(d instanceof Boolean)) throw bad("rewind_files: dry_run must be a boolean");
                if (u != Main.UNDEFINED && !(u instanceof String)) throw bad("rewind_files: user_message_id must be a string");
                if (Boolean.TRUE.equals(d)) {
                    return Main.obj().with("canRewind", false).with("reason", "File rewinding is not enabled.");
                }
                throw new Err("rewind_unavailable", "File rewinding is not enabled.");
            }
            case "mcp_reconnect":
            case "mcp_toggle": {
                Object s = Main.get(req, "serverName"), e = Main.get(req, "enabled");
                if (s != Main.UNDEFINED && !(s instanceof String)) throw bad("serverName must be a string");
                if (subtype.equals("mcp_toggle") && e != Main.UNDEFINED && !(e instanceof Boolean)) {
                    throw bad("mcp_toggle: enabled must be a boolean");
                }
                throw new Err("unknown_server", Main.stripInvisible("Server not found: " + Main.jsString(s)));
            }
            case "stop_task":
                a = Main.get(req, "task_id");
                if (a != Main.UNDEFINED && !(a instanceof String)) throw bad("stop_task: task_id must be a string");
                return Main.obj();
            case "hold":
                pending.add(rid);
                return null;
            case "release": {
                String target = usableId(req.get("target"));
                if (target == null) throw bad("release: target must be a non-empty string");
                if (pending.contains(target)) {
                    replyOk(target, Main.obj().with("releasedBy", rid));
                    return Main.obj().with("released", true);
                }
                return Main.obj().with("released", false);
            }
            default:
                throw new Err("unsupported_request", Main.stripInvisible("Unsupported control request subtype: " + subtype));
        }
    }

    private Main.Obj setModel(Map<String, Object> req) throws Err {
        Object m = req.get("model");
        String resolved;
        if (m == null) {
            resolved = Main.DEFAULT_MODEL;
        } else if (!(m instanceof String)) {
            throw bad("set_model: model must be a string or null");
        } else {
            String s = (String) m;
            if (s.isEmpty()) throw bad("set_model: model must not be empty");
            int br = s.indexOf('[');
            String base = br > 0 && s.endsWith("]") ? s.substring(0, br) : s;
            switch (base) {
                case "default":
                    resolved = Main.DEFAULT_MODEL;
                    break;
                case "opus": case "sonnet": case "haiku":
                    resolved = "claude-" + base + "-5-5";
                    break;
                case "claude-opus-5-5": case "claude-sonnet-5-5": case "claude-haiku-5-5":
                    if (base.equals(s)) {
                        resolved = s;
                        break;
                    }
                    // fall through: catalog ids take no suffix
                default:
                    throw new Err("unknown_model", "set_model: the model is not in this agent's catalog");
            }
        }
        agent.model = resolved;
        return Main.obj().with("model", resolved);
    }

    private int initialize(String rid, Map<String, Object> req) throws IOException {
        if (initialized) {
            replyErr(rid, "already_initialized", "the session is already initialized");
            return -1;
        }
        Object pv = req.get("protocolVersions");
        boolean valid = pv instanceof List && !((List<?>) pv).isEmpty();
        List<Double> versions = new ArrayList<>();
        if (valid) {
            for (Object x : (List<?>) pv) {
                if (!(x instanceof Double)) { valid = false; break; }
                double d = (Double) x;
                if (!Double.isFinite(d) || Math.rint(d) != d || d < 1 || versions.contains(d)) { valid = false; break; }
                versions.add(d);
            }
        }
        if (!valid) {
            replyErr(rid, "invalid_request", "initialize: protocolVersions must be a non-empty array of distinct positive integers");
            return -1;
        }
        if (!versions.contains(2.0)) {
            // A v2-framed session speaks 2 only (a v1 host speaks v1 framing from its first line).
            replyErr(rid, "version_mismatch", "no shared protocol version: this agent speaks 2 in a v2 session");
            return 1;
        }
        initialized = true;
        replyOk(rid, Main.obj().with("protocolVersion", 2.0).with("session", agent.sessionBody(req)));
        return -1;
    }

    /** End of input: every pending request gets its terminal reply. */
    void finish() throws IOException {
        for (String id : new ArrayList<>(pending)) replyErr(id, "cancelled", "input ended while the request was pending");
    }
}
