package conform;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Template: a conform host-role adapter for your SDK, in Java.
 *
 * <p>conform certifies a host (an SDK that drives the Claude Code CLI) in spawned mode: your adapter is started once
 * per vector, with the vector's decisions in the environment variable {@code CONFORM_POLICY} (docs/host-role.md), and
 * starts "the CLI" the way your SDK always does: the {@code claude} on PATH (also named by {@code CONFORM_AGENT}) is
 * conform's agent double, which plays the vector and records what your SDK answers.
 *
 * <pre>
 * mvn -q package &amp;&amp; conform run --role host --mode spawned -- java -cp "$PWD/target/lib/*:$PWD/target/classes" conform.Adapter
 * </pre>
 *
 * <p>Part 1 (keep): the policy methods; each returns the reply body your SDK's callback should produce. Part 2
 * (replace): a stand-in for an SDK, so that this template runs as it is. In your adapter, delete Part 2, build your
 * SDK's client as its README shows, register Part 1's methods as its callbacks (permission callback, hooks, an
 * in-process MCP server, dialog and elicitation handlers), send one prompt and wait for the result. Never fix up what
 * your SDK writes: the report should show its faults.
 */
public final class Adapter {

    private static final String DENIED = "Denied by policy";
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    private final JsonNode policy;

    Adapter(JsonNode policy) {
        this.policy = policy;
    }

    // ---- Part 1: the policy as callbacks ----

    /**
     * The permission decision: {"behavior": "allow"|"deny", ...}, or empty for "no decision yet" (rule
     * {"defer": true}: the user has not answered).
     */
    Optional<ObjectNode> canUseTool(String tool, JsonNode input) {
        JsonNode rules = policy.path("can_use_tool");
        JsonNode rule = rules.has(tool) ? rules.get(tool) : rules.path("*");
        if (rule.path("defer").booleanValue()) { // true only for the JSON literal true
            return Optional.empty();
        }
        return Optional.of(decide(tool, input, rule));
    }

    /** The decision of any rule but defer: docs/host-role.md "can_use_tool: tool name → rule". */
    private ObjectNode decide(String tool, JsonNode input, JsonNode rule) {
        ObjectNode out = JSON.createObjectNode();
        if ("deny".equals(rule.path("behavior").asText())) {
            out.put("behavior", "deny").set("message", rule.has("message") ? rule.get("message") : out.textNode(DENIED));
            if (rule.path("interrupt").asBoolean(false)) {
                out.put("interrupt", true);
            }
            return out;
        }
        if ("AskUserQuestion".equals(tool) && input.path("questions").isArray() && !rule.has("updatedInput")) {
            ObjectNode answers = JSON.createObjectNode();
            for (JsonNode q : input.get("questions")) {
                String text = q.path("question").asText(null);
                JsonNode a = text == null ? null : policy.path("answers").get(text);
                if (a == null) {
                    return out.put("behavior", "deny").put("message", DENIED);
                }
                if (a.isArray()) {
                    List<String> labels = new ArrayList<>();
                    a.forEach(l -> labels.add(l.asText()));
                    answers.put(text, String.join(", ", labels));
                } else {
                    answers.set(text, a);
                }
            }
            ObjectNode updated = ((ObjectNode) input).deepCopy();
            updated.set("answers", answers);
            return out.put("behavior", "allow").set("updatedInput", updated);
        }
        if ("allow".equals(rule.path("behavior").asText())) {
            out.put("behavior", "allow").set("updatedInput", rule.has("updatedInput") ? rule.get("updatedInput") : input);
            if (rule.has("updatedPermissions")) {
                out.set("updatedPermissions", rule.get("updatedPermissions"));
            }
            return out;
        }
        return out.put("behavior", "deny").put("message", DENIED);
    }

    /** The hook output of a registered callback, null for an unknown one. */
    JsonNode hook(String callbackId) {
        return policy.path("hooks").get(callbackId);
    }

    /** The JSON-RPC reply of your SDK's in-process MCP server. */
    ObjectNode mcp(String server, JsonNode msg) {
        ObjectNode out = JSON.createObjectNode().put("jsonrpc", "2.0");
        JsonNode id = msg.get("id");
        if (!msg.path("method").isTextual() || id == null || id.isNull()) {
            return out.set("result", JSON.createObjectNode()); // a notification: acknowledged
        }
        out.set("id", id);
        JsonNode methods = policy.path("mcp").get(server);
        if (methods == null) {
            ObjectNode err = JSON.createObjectNode().put("code", -32601).put("message", "Server '" + server + "' not found");
            return out.set("error", err);
        }
        JsonNode result = methods.get(msg.get("method").asText());
        return out.set("result", result != null ? result : JSON.createObjectNode());
    }

    JsonNode orDefault(String name, String key, String value) {
        return policy.has(name) ? policy.get(name) : JSON.createObjectNode().put(key, value);
    }

    // ---- Part 2: a stand-in for your SDK (replace with your SDK's client) ----

    /** The control_response payload for one request, or null: no reply (a permission the user has not decided yet). */
    ObjectNode answer(JsonNode body) {
        ObjectNode ok = JSON.createObjectNode().put("subtype", "success");
        String sub = body.path("subtype").asText();
        switch (sub) {
            case "can_use_tool" -> {
                Optional<ObjectNode> decision = canUseTool(body.path("tool_name").asText(),
                        body.path("input").isObject() ? body.get("input") : JSON.createObjectNode());
                if (decision.isEmpty()) {
                    // No decision yet: a real SDK adapter's permission callback returns a CompletableFuture that is
                    // never completed, so the SDK writes nothing, even when the agent cancels the request.
                    return null;
                }
                ok.set("response", decision.get());
            }
            case "hook_callback" -> {
                JsonNode out = hook(body.path("callback_id").asText());
                if (out == null) {
                    return JSON.createObjectNode().put("subtype", "error")
                            .put("error", "No hook callback found for ID: " + body.path("callback_id").asText());
                }
                ok.set("response", out);
            }
            case "mcp_message" -> ok.set("response", JSON.createObjectNode()
                    .set("mcp_response", mcp(body.path("server_name").asText(), body.path("message"))));
            case "request_user_dialog" -> ok.set("response", orDefault("dialog", "behavior", "cancelled"));
            case "elicitation" -> ok.set("response", orDefault("elicitation", "action", "decline"));
            case "side_question" -> ok.set("response", orDefault("side_question", "action", "decline"));
            default -> {
                return JSON.createObjectNode().put("subtype", "error")
                        .put("error", "Unsupported control request subtype: " + sub);
            }
        }
        return ok;
    }

    public static void main(String[] args) throws Exception {
        String raw = System.getenv("CONFORM_POLICY");
        Adapter a = new Adapter(JSON.readTree(raw == null || raw.isEmpty() ? "{}" : raw));
        Process agent = new ProcessBuilder("claude", "--output-format", "stream-json", "--verbose", "--input-format",
                "stream-json", "--permission-prompt-tool", "stdio").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        OutputStream in = agent.getOutputStream();
        send(in, JSON.readTree("{\"type\":\"control_request\",\"request_id\":\"init-1\",\"request\":{\"subtype\":\"initialize\"}}"));
        send(in, JSON.readTree("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"conform\"},\"parent_tool_use_id\":null}"));
        BufferedReader out = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null;) {
            JsonNode frame = JSON.readTree(line);
            String type = frame.path("type").asText();
            if (type.equals("result")) {
                in.close();
            } else if (type.equals("control_request")) {
                ObjectNode reply = a.answer(frame.path("request"));
                if (reply == null) {
                    continue; // pending: no reply, ever (v1)
                }
                if (frame.has("request_id")) {
                    reply.set("request_id", frame.get("request_id"));
                }
                send(in, JSON.createObjectNode().put("type", "control_response").set("response", reply));
            }
        }
        System.exit(agent.waitFor());
    }

    private static void send(OutputStream in, JsonNode frame) throws Exception {
        in.write((JSON.writeValueAsString(frame) + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }
}
