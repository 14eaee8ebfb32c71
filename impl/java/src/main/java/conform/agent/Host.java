package conform.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Host role of control protocol v1 (docs/host-role.md).
 *
 * <p>{@link Main} hands the process over to {@link #run()} when CONFORM_ROLE=host. The agent
 * writes frames on stdin; this host answers each control_request with exactly one
 * control_response on stdout, deciding as the policy in CONFORM_POLICY (RFC 8785 JSON; unset or
 * empty = {}) dictates; a can_use_tool the policy defers gets no reply at all. Written from
 * docs/host-role.md, schemas/control.v1.json, vectors/v1/host/ and golden/v1/host/.
 */
final class Host {
    static final String POLICY_ENV = "CONFORM_POLICY";
    static final String DENIED = "Denied by policy";
    static final String ASK_TOOL = "AskUserQuestion";

    private final Map<String, Object> policy;

    Host(Map<String, Object> policy) {
        this.policy = policy;
    }

    /** A policy the host cannot follow. */
    static final class PolicyException extends Exception {
        PolicyException(String message) {
            super(message);
        }
    }

    /** A success body, an error text, or {@link #DEFER}: no reply at all (a deferred request). */
    private static final class Decision {
        static final Decision DEFER = new Decision(null, null);

        final Object body;
        final String error;

        private Decision(Object body, String error) {
            this.body = body;
            this.error = error;
        }

        static Decision body(Object b) {
            return new Decision(b, null);
        }

        static Decision error(String e) {
            return new Decision(null, e);
        }
    }

    /** obj[key] when obj is an object that has the member, else {@link Main#UNDEFINED}. */
    @SuppressWarnings("unchecked")
    static Object member(Object obj, String key) {
        if (obj instanceof Map) return Main.get((Map<String, Object>) obj, key);
        return Main.UNDEFINED;
    }

    /** obj[key] when it is an object, else null. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> objectMember(Object obj, String key) {
        Object v = member(obj, key);
        return v instanceof Map ? (Map<String, Object>) v : null;
    }

    private Map<String, Object> policyObject(String key) {
        Map<String, Object> m = objectMember(policy, key);
        return m == null ? new LinkedHashMap<>() : m;
    }

    /**
     * Whether a can_use_tool rule is {"defer": true}: the host does not decide yet (a user who has
     * not answered), so the request stays pending, and in v1 a pending request gets no reply at
     * all, whether the agent cancels it or input ends.
     */
    static boolean isDefer(Object rule) {
        return Boolean.TRUE.equals(member(rule, "defer"));
    }

    /** The can_use_tool rule for req: the tool's own, else "*"'s, else {@link Main#UNDEFINED}. */
    private Object toolRule(Object req) {
        Object tool = member(req, "tool_name");
        Map<String, Object> rules = policyObject("can_use_tool");
        return tool instanceof String && rules.containsKey(tool) ? rules.get(tool) : Main.get(rules, "*");
    }

    private static Map<String, Object> denyDefault() {
        return Main.obj().with("behavior", "deny").with("message", DENIED);
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> canUseTool(Object req) {
        Object tool = member(req, "tool_name");
        Object found = toolRule(req);
        Map<String, Object> rule = found instanceof Map ? (Map<String, Object>) found : null;
        Object behavior = member(rule, "behavior");
        Object rawInput = member(req, "input");
        Map<String, Object> input = rawInput instanceof Map ? (Map<String, Object>) rawInput : new LinkedHashMap<>();

        if ("deny".equals(behavior)) return deny(rule);
        Object given = member(rule, "updatedInput");
        Object questions = member(input, "questions");
        if (ASK_TOOL.equals(tool) && questions instanceof List) {
            if ("allow".equals(behavior) && given instanceof Map) return allow(rule, given);
            Map<String, Object> answers = answer((List<Object>) questions);
            if (answers == null) return denyDefault();
            Map<String, Object> updated = new LinkedHashMap<>(input);
            updated.put("answers", answers);
            return allow("allow".equals(behavior) ? rule : null, updated);
        }
        if ("allow".equals(behavior)) return allow(rule, given instanceof Map ? given : input);
        return denyDefault();
    }

    private static Map<String, Object> allow(Map<String, Object> rule, Object updatedInput) {
        Main.Obj body = Main.obj().with("behavior", "allow").with("updatedInput", updatedInput);
        Object perms = member(rule, "updatedPermissions");
        if (perms instanceof List) body.put("updatedPermissions", perms);
        return body;
    }

    private static Map<String, Object> deny(Map<String, Object> rule) {
        Object message = member(rule, "message");
        Main.Obj body = Main.obj().with("behavior", "deny")
                .with("message", message instanceof String ? message : DENIED);
        if (Boolean.TRUE.equals(member(rule, "interrupt"))) body.put("interrupt", true);
        return body;
    }

    /** {question text: answer string} for every question, or null. */
    private Map<String, Object> answer(List<Object> questions) {
        Map<String, Object> table = policyObject("answers");
        Map<String, Object> out = new LinkedHashMap<>();
        for (Object q : questions) {
            Object text = member(q, "question");
            if (!(text instanceof String)) return null;
            Object a = Main.get(table, (String) text);
            if (a instanceof List) {
                List<?> labels = (List<?>) a;
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < labels.size(); i++) {
                    if (!(labels.get(i) instanceof String)) return null;
                    if (i > 0) b.append(", ");
                    b.append((String) labels.get(i));
                }
                a = b.toString();
            }
            if (!(a instanceof String)) return null;
            out.put((String) text, a);
        }
        return out;
    }

    private Decision hook(Object req) {
        Object id = member(req, "callback_id");
        Map<String, Object> hooks = policyObject("hooks");
        if (id instanceof String && hooks.containsKey(id)) return Decision.body(hooks.get(id));
        return Decision.error("No hook callback found for ID: " + Main.jsString(id));
    }

    private Map<String, Object> mcp(Object req) {
        Object server = member(req, "server_name");
        Object msg = member(req, "message");
        Map<String, Object> servers = policyObject("mcp");
        Object id = member(msg, "id");
        Object method = member(msg, "method");
        Map<String, Object> reply;
        if (method != Main.UNDEFINED && id != Main.UNDEFINED && id != null) {
            if (server instanceof String && servers.containsKey(server)) {
                Object methods = servers.get(server);
                Object result = method instanceof String ? member(methods, (String) method) : Main.UNDEFINED;
                reply = Main.obj().with("jsonrpc", "2.0").with("id", id)
                        .with("result", result == Main.UNDEFINED ? new LinkedHashMap<>() : result);
            } else {
                reply = Main.obj().with("jsonrpc", "2.0").with("id", id).with("error", Main.obj()
                        .with("code", -32601.0)
                        .with("message", "Server '" + Main.jsString(server) + "' not found"));
            }
        } else {
            reply = Main.obj().with("jsonrpc", "2.0").with("result", new LinkedHashMap<>());
        }
        return Main.obj().with("mcp_response", reply);
    }

    private Object verbatim(String key, Map<String, Object> fallback) {
        Map<String, Object> body = objectMember(policy, key);
        return body == null ? fallback : body;
    }

    private Decision decide(Object req) {
        Object subtype = member(req, "subtype");
        String s = subtype instanceof String ? (String) subtype : "";
        switch (s) {
            case "can_use_tool":
                return isDefer(toolRule(req)) ? Decision.DEFER : Decision.body(canUseTool(req));
            case "hook_callback":
                return hook(req);
            case "mcp_message":
                return Decision.body(mcp(req));
            case "request_user_dialog":
                return Decision.body(verbatim("dialog", Main.obj().with("behavior", "cancelled")));
            case "elicitation":
                return Decision.body(verbatim("elicitation", Main.obj().with("action", "decline")));
            case "side_question":
                return Decision.body(verbatim("side_question", Main.obj().with("action", "decline")));
            default:
                return Decision.error("Unsupported control request subtype: " + Main.jsString(subtype));
        }
    }

    /** The reply line to one input line, or null. */
    String reply(String line) {
        String text = Main.jsTrim(line);
        if (text.isEmpty()) return null;
        Object frame;
        try {
            frame = Main.parse(text);
        } catch (IOException | StackOverflowError e) {
            return null; // not JSON: ignored, the host never exits on bad input
        }
        if (!"control_request".equals(member(frame, "type"))) return null; // other frames get nothing
        Decision d = decide(member(frame, "request"));
        if (d == Decision.DEFER) return null; // pending for good: v1 never answers it
        Main.Obj inner = Main.obj().with("subtype", d.error == null ? "success" : "error");
        inner.withOpt("request_id", member(frame, "request_id"));
        if (d.error == null) {
            inner.put("response", d.body);
        } else {
            inner.put("error", d.error);
        }
        StringBuilder b = new StringBuilder();
        Main.write(b, Main.obj().with("type", "control_response").with("response", inner));
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> loadPolicy(String text) throws PolicyException {
        if (text == null || text.trim().isEmpty()) return new LinkedHashMap<>();
        Object v;
        try {
            v = Main.parse(text);
        } catch (IOException e) {
            String why = String.valueOf(e.getMessage()).lines().findFirst().orElse(""); // one stderr line
            throw new PolicyException(POLICY_ENV + " is not JSON: " + why);
        }
        if (!(v instanceof Map)) throw new PolicyException(POLICY_ENV + " is not a JSON object");
        Map<String, Object> rules = objectMember(v, "can_use_tool");
        if (rules != null) {
            for (Map.Entry<String, Object> e : rules.entrySet()) {
                if (isDefer(e.getValue()) && ((Map<String, Object>) e.getValue()).size() > 1) {
                    StringBuilder name = new StringBuilder();
                    Main.write(name, e.getKey());
                    throw new PolicyException(POLICY_ENV + ": can_use_tool " + name + ": a defer rule has no other member");
                }
            }
        }
        return (Map<String, Object>) v;
    }

    /** Plays the host role until end of input; returns the exit status. */
    static int run() throws IOException {
        Host host;
        try {
            host = new Host(loadPolicy(System.getenv(POLICY_ENV)));
        } catch (PolicyException e) {
            System.err.println("conform-agent-java host: " + e.getMessage());
            return 2;
        }
        OutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);
        Main.LineReader r = new Main.LineReader(System.in);
        while (r.next(-1)) {
            byte[] bytes = r.line.toByteArray();
            String reply = host.reply(Main.decodeUtf8(bytes, bytes.length));
            if (reply == null) continue;
            try {
                out.write((reply + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                return 0; // the agent went away
            }
        }
        return 0;
    }
}
