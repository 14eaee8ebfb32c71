package conform;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springaicommunity.claude.agent.sdk.ClaudeClient;
import org.springaicommunity.claude.agent.sdk.ClaudeSyncClient;
import org.springaicommunity.claude.agent.sdk.hooks.HookRegistry;
import org.springaicommunity.claude.agent.sdk.permission.PermissionResult;
import org.springaicommunity.claude.agent.sdk.permission.ToolPermissionContext;
import org.springaicommunity.claude.agent.sdk.types.Message;
import org.springaicommunity.claude.agent.sdk.types.ResultMessage;
import org.springaicommunity.claude.agent.sdk.types.control.HookOutput;

/**
 * conform host-role adapter around org.springaicommunity:claude-code-sdk 1.0.0 (spawned mode): the SDK starts
 * "the Claude Code CLI", which is conform's agent double ({@code claude} on PATH), and this program answers the
 * agent's requests through the SDK's own callbacks, following the vector's policy in {@code CONFORM_POLICY}
 * (docs/host-role.md). It uses the SDK as its README shows: {@code ClaudeClient.sync()...hookRegistry(...).build()},
 * {@code connectAndReceive} until the {@code ResultMessage}; the permission callback is set with
 * {@code setToolPermissionCallback}, as the {@code ClaudeSyncClient} documentation shows. Everything on the wire is
 * the SDK's doing.
 */
public final class Adapter {

    private static final String DENIED = "Denied by policy";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern HOOK_ID = Pattern.compile("hook_(\\d+)");

    private final Map<String, Object> policy;

    private Adapter(Map<String, Object> policy) {
        this.policy = policy;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> member(Map<String, Object> m, String name) {
        Object v = m == null ? null : m.get(name);
        return v instanceof Map ? (Map<String, Object>) v : null;
    }

    private static PermissionResult deny(Map<String, Object> rule) {
        Object message = rule == null ? null : rule.get("message");
        // The SDK's Deny has a message only: a rule's "interrupt" cannot be expressed.
        return PermissionResult.deny(message instanceof String s ? s : DENIED);
    }

    /** The policy's decision for one can_use_tool request. */
    @SuppressWarnings("unchecked")
    private PermissionResult decide(String tool, Map<String, Object> input, ToolPermissionContext ctx) {
        Map<String, Object> rules = member(policy, "can_use_tool");
        Map<String, Object> rule = member(rules, tool);
        if (rule == null) {
            rule = member(rules, "*");
        }
        Object behavior = rule == null ? null : rule.get("behavior");
        if ("deny".equals(behavior)) {
            return deny(rule);
        }
        Map<String, Object> ruleInput = member(rule, "updatedInput");
        Object questions = input == null ? null : input.get("questions");
        if ("AskUserQuestion".equals(tool) && questions instanceof List<?> qs && ruleInput == null) {
            Map<String, Object> answers = member(policy, "answers");
            Map<String, Object> out = new LinkedHashMap<>();
            for (Object q : qs) {
                Object text = q instanceof Map ? ((Map<String, Object>) q).get("question") : null;
                if (!(text instanceof String t) || answers == null || !answers.containsKey(t)) {
                    return deny(null);
                }
                Object a = answers.get(t);
                if (a instanceof List<?> labels) {
                    a = String.join(", ", labels.stream().map(String::valueOf).toList());
                }
                out.put(t, a);
            }
            Map<String, Object> updated = new LinkedHashMap<>(input);
            updated.put("answers", out);
            return PermissionResult.allow(updated);
        }
        if ("allow".equals(behavior)) {
            // A rule without updatedInput allows the tool with its input unchanged: the SDK's plain allow.
            // The SDK's Allow has no updatedPermissions: a rule's list cannot be expressed.
            return ruleInput == null ? PermissionResult.allow() : PermissionResult.allow(ruleInput);
        }
        return deny(null);
    }

    /**
     * hook_N of the policy is the SDK's N-th registered callback (HookRegistry names them hook_0, hook_1, ... in
     * registration order): one PreToolUse hook per number up to the highest; numbers the policy skips answer {}.
     */
    private HookRegistry hooks() {
        HookRegistry registry = new HookRegistry();
        Map<String, Object> bodies = member(policy, "hooks");
        int n = -1;
        for (String k : bodies == null ? List.<String>of() : bodies.keySet()) {
            Matcher m = HOOK_ID.matcher(k);
            if (m.matches()) {
                n = Math.max(n, Integer.parseInt(m.group(1)));
            }
        }
        for (int i = 0; i <= n; i++) {
            Map<String, Object> body = member(bodies, "hook_" + i);
            HookOutput out = JSON.convertValue(body == null ? Map.of() : body, HookOutput.class);
            registry.registerPreToolUse(input -> out);
        }
        return registry;
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        String raw = System.getenv("CONFORM_POLICY");
        Map<String, Object> policy = raw == null || raw.isEmpty() ? Map.of() : JSON.readValue(raw, Map.class);
        Adapter a = new Adapter(policy);
        try (ClaudeSyncClient client = ClaudeClient.sync()
                .workingDirectory(Path.of("."))
                .hookRegistry(a.hooks())
                .build()) {
            client.setToolPermissionCallback(a::decide);
            for (Message msg : client.connectAndReceive("conform")) {
                if (msg instanceof ResultMessage) {
                    break;
                }
            }
        }
    }
}
