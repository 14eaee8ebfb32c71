// Command conform-mcp-go-sdk is conform's MCP echo/adder server for
// github.com/modelcontextprotocol/go-sdk v1.8.0, written as the SDK's
// README shows (mcp.NewServer, mcp.AddTool with typed inputs, server.Run on
// mcp.StdioTransport). The same five tools as every impl/mcp-* server:
// echo, add, fail, progress, slow.
package main

import (
	"context"
	"fmt"
	"log"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type EchoInput struct {
	Text string `json:"text"`
}

type AddInput struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type FailInput struct {
	Message string `json:"message,omitempty"`
}

type ProgressInput struct {
	Steps int `json:"steps" jsonschema:"from 1 to 100"`
}

type SlowInput struct {
	MS int `json:"ms" jsonschema:"milliseconds, at most 60000"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
	return text(in.Text), nil, nil
}

func add(_ context.Context, _ *mcp.CallToolRequest, in AddInput) (*mcp.CallToolResult, any, error) {
	return text(strconv.FormatFloat(in.A+in.B, 'f', -1, 64)), nil, nil
}

func fail(_ context.Context, _ *mcp.CallToolRequest, in FailInput) (*mcp.CallToolResult, any, error) {
	msg := in.Message
	if msg == "" {
		msg = "the fail tool always fails"
	}
	res := text(msg)
	res.IsError = true
	return res, nil, nil
}

func progress(ctx context.Context, req *mcp.CallToolRequest, in ProgressInput) (*mcp.CallToolResult, any, error) {
	if token := req.Params.GetProgressToken(); token != nil {
		for i := 1; i <= in.Steps; i++ {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(i), Total: float64(in.Steps),
				Message: fmt.Sprintf("step %d of %d", i, in.Steps),
			})
			if err != nil {
				return nil, nil, err
			}
		}
	}
	return text(fmt.Sprintf("done after %d steps", in.Steps)), nil, nil
}

func slow(ctx context.Context, _ *mcp.CallToolRequest, in SlowInput) (*mcp.CallToolResult, any, error) {
	select {
	case <-time.After(time.Duration(min(in.MS, 60000)) * time.Millisecond):
		return text(fmt.Sprintf("slept %d ms", in.MS)), nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "conform-mcp-go-sdk", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Returns its text argument as text content."}, echo)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two numbers and returns the sum as text content."}, add)
	mcp.AddTool(server, &mcp.Tool{Name: "fail", Description: "Always ends in a tool execution error (isError: true) carrying its message."}, fail)
	mcp.AddTool(server, &mcp.Tool{Name: "progress", Description: "Sends one notifications/progress per step when the request carries a progressToken, then returns."}, progress)
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response."}, slow)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
