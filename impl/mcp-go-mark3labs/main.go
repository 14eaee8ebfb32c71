// Command conform-mcp-go-mark3labs is conform's MCP echo/adder server for
// github.com/mark3labs/mcp-go v1.2.1, written as the library's README
// Quickstart shows (server.NewMCPServer, mcp.NewTool with property options,
// s.AddTool, server.ServeStdio). The same five tools as every impl/mcp-*
// server: echo, add, fail, progress, slow.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("conform-mcp-go-mark3labs", "0.1.0", server.WithToolCapabilities(false), server.WithRecovery())

	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Returns its text argument as text content."),
		mcp.WithString("text", mcp.Required()),
	), func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := request.RequireString("text")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(text), nil
	})

	s.AddTool(mcp.NewTool("add",
		mcp.WithDescription("Adds two numbers and returns the sum as text content."),
		mcp.WithNumber("a", mcp.Required()),
		mcp.WithNumber("b", mcp.Required()),
	), func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := request.RequireFloat("a")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		b, err := request.RequireFloat("b")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(strconv.FormatFloat(a+b, 'f', -1, 64)), nil
	})

	s.AddTool(mcp.NewTool("fail",
		mcp.WithDescription("Always ends in a tool execution error (isError: true) carrying its message."),
		mcp.WithString("message"),
	), func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError(request.GetString("message", "the fail tool always fails")), nil
	})

	s.AddTool(mcp.NewTool("progress",
		mcp.WithDescription("Sends one notifications/progress per step when the request carries a progressToken, then returns."),
		mcp.WithInteger("steps", mcp.Required(), mcp.Min(1), mcp.Max(100)),
	), func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		steps, err := request.RequireInt("steps")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if request.Params.Meta != nil && request.Params.Meta.ProgressToken != nil {
			for i := 1; i <= steps; i++ {
				err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": request.Params.Meta.ProgressToken,
					"progress":      i,
					"total":         steps,
					"message":       fmt.Sprintf("step %d of %d", i, steps),
				})
				if err != nil {
					return nil, err
				}
			}
		}
		return mcp.NewToolResultText(fmt.Sprintf("done after %d steps", steps)), nil
	})

	s.AddTool(mcp.NewTool("slow",
		mcp.WithDescription("Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response."),
		mcp.WithInteger("ms", mcp.Required(), mcp.Min(0), mcp.Max(60000)),
	), func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ms, err := request.RequireInt("ms")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		select {
		case <-time.After(time.Duration(min(ms, 60000)) * time.Millisecond):
			return mcp.NewToolResultText(fmt.Sprintf("slept %d ms", ms)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})

	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "server error:", err)
		os.Exit(1)
	}
}
