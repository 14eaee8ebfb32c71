package conform;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ProgressNotification;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.function.BiFunction;

/**
 * conform's MCP echo/adder server for io.modelcontextprotocol.sdk:mcp 2.1.0, written as the SDK's
 * documentation shows (StdioServerTransportProvider, McpServer.sync(...).serverInfo(...)
 * .capabilities(...).tools(...).build()). The same five tools as every impl/mcp-* server: echo,
 * add, fail, progress, slow.
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
                }))
        .build();
  }
}
