package conform;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageRequest;
import io.modelcontextprotocol.spec.McpSchema.CreateMessageResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.ListRootsResult;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.Role;
import io.modelcontextprotocol.spec.McpSchema.Root;
import io.modelcontextprotocol.spec.McpSchema.SamplingMessage;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * conform's MCP echo/adder server for io.modelcontextprotocol.sdk:mcp 2.1.0, written as the SDK's
 * documentation shows (StdioServerTransportProvider, McpServer.sync(...).serverInfo(...)
 * .capabilities(...).tools(...).build()). The same five tools as every impl/mcp-* server: echo,
 * add, fail, progress, slow; and the three that ask the client (roots, sample, elicit), through
 * the tool's McpSyncServerExchange: listRoots(), createMessage(...) and createElicitation(...).
 * The server does not check the client's capabilities itself: whatever the SDK does is what the
 * suite sees.
 */
public final class Server {
  private Server() {}

  private static SyncToolSpecification tool(
      McpJsonMapper json, String name, String description, String inputSchema,
      BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> handler) {
    return SyncToolSpecification.builder()
        .tool(Tool.builder().name(name).description(description).inputSchema(json, inputSchema).build())
        .callHandler(handler)
        .build();
  }

  private static CallToolResult text(String s) {
    return CallToolResult.builder().addTextContent(s).build();
  }

  /** The sum as the other SDK servers write it (ECMAScript Number::toString): 3, not 3.0. */
  static String number(double x) {
    if (x == Math.rint(x) && Math.abs(x) < 1e21) {
      return new java.math.BigDecimal(x).toPlainString();
    }
    return Double.toString(x);
  }

  private static double num(Object o) {
    return ((Number) o).doubleValue();
  }

  private static CallToolResult toolError(String s) {
    return CallToolResult.builder().addTextContent(s).isError(true).build();
  }

  /**
   * Sends one request to the client through the SDK. A JSON-RPC error answer (McpError) and a
   * request the SDK refused to send (it throws IllegalStateException when the client did not
   * declare the capability) become isError results.
   */
  private static <T> CallToolResult ask(String method, Supplier<T> send, Function<T, CallToolResult> done) {
    T res;
    try {
      res = send.get();
    } catch (McpError e) {
      var err = e.getJsonRpcError();
      if (err == null) {
        return toolError(String.valueOf(e.getMessage()));
      }
      return toolError("the client answered " + method + " with error " + err.code() + ": " + err.message());
    } catch (RuntimeException e) {
      return toolError(String.valueOf(e.getMessage()));
    }
    return done.apply(res);
  }

  private static CallToolResult roots(McpSyncServerExchange ex) {
    return ask("roots/list", ex::listRoots, (ListRootsResult res) ->
        text(res.roots().stream().map(Root::uri).collect(Collectors.joining("\n"))));
  }

  private static CallToolResult sample(McpSyncServerExchange ex, String prompt) {
    var req = CreateMessageRequest.builder()
        .messages(List.of(new SamplingMessage(Role.USER, new TextContent(prompt))))
        .maxTokens(100)
        .build();
    return ask("sampling/createMessage", () -> ex.createMessage(req), (CreateMessageResult res) -> {
      if (res.content() instanceof TextContent t) {
        return text(t.text() + " (model " + res.model() + ")");
      }
      return toolError("the client's sampling result has no text content");
    });
  }

  private static CallToolResult elicit(McpJsonMapper json, McpSyncServerExchange ex, String message) {
    Map<String, Object> schema = Map.of(
        "type", "object",
        "properties", Map.of("name", Map.of("type", "string", "title", "Name")),
        "required", List.of("name"));
    var req = ElicitRequest.builder(message, schema).build();
    return ask("elicitation/create", () -> ex.createElicitation(req), (ElicitResult res) -> {
      String action = res.action().name().toLowerCase(Locale.ROOT);
      if (res.action() == ElicitResult.Action.ACCEPT && res.content() != null) {
        try {
          return text("accept " + json.writeValueAsString(res.content()));
        } catch (IOException e) {
          return toolError(e.getMessage());
        }
      }
      return text(action);
    });
  }

  public static void main(String[] args) {
    McpJsonMapper json = McpJsonDefaults.getMapper();
    var transport = new StdioServerTransportProvider(json);
    McpServer.sync(transport)
        .serverInfo("conform-mcp-java", "0.1.0")
        .capabilities(ServerCapabilities.builder().tools(false).build())
        .tools(
            tool(json, "echo", "Returns its text argument as text content.",
                "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
                (ex, req) -> text((String) req.arguments().get("text"))),
            tool(json, "add", "Adds two numbers and returns the sum as text content.",
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}",
                (ex, req) -> text(number(num(req.arguments().get("a")) + num(req.arguments().get("b"))))),
            tool(json, "fail", "Always ends in a tool execution error (isError: true) carrying its message.",
                "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}}",
                (ex, req) -> {
                  Object m = req.arguments().get("message");
                  String msg = m instanceof String s && !s.isEmpty() ? s : "the fail tool always fails";
                  return CallToolResult.builder().addTextContent(msg).isError(true).build();
                }),
            tool(json, "progress", "Sends one notifications/progress per step when the request carries a progressToken, then returns.",
                "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100}},\"required\":[\"steps\"]}",
                (ex, req) -> {
                  int steps = (int) num(req.arguments().get("steps"));
                  Object token = req.progressToken();
                  if (token != null) {
                    for (int i = 1; i <= steps; i++) {
                      ex.progressNotification(new ProgressNotification(token, i, (double) steps, "step " + i + " of " + steps));
                    }
                  }
                  return text("done after " + steps + " steps");
                }),
            tool(json, "slow", "Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response.",
                "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":60000}},\"required\":[\"ms\"]}",
                (ex, req) -> {
                  long ms = (long) num(req.arguments().get("ms"));
                  try {
                    Thread.sleep(Math.min(ms, 60000));
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return text("slept " + ms + " ms");
                }),
            tool(json, "roots", "Asks the client for roots/list and returns the root URIs, one per line.",
                "{\"type\":\"object\",\"properties\":{}}",
                (ex, req) -> roots(ex)),
            tool(json, "sample", "Asks the client for sampling/createMessage with the prompt and returns the model's text.",
                "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}},\"required\":[\"prompt\"]}",
                (ex, req) -> sample(ex, (String) req.arguments().get("prompt"))),
            tool(json, "elicit", "Asks the client for elicitation/create (a form with one string field, name) and returns the action and content.",
                "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}",
                (ex, req) -> elicit(json, ex, (String) req.arguments().get("message"))))
        .build();
  }
}
