// Command conform-mcp-go-sdk is conform's MCP echo/adder server for
// github.com/modelcontextprotocol/go-sdk v1.8.0, written as the SDK's
// README shows (mcp.NewServer, mcp.AddTool with typed inputs, server.Run on
// mcp.StdioTransport). The same five tools as every impl/mcp-* server:
// echo, add, fail, progress, slow; and the three that ask the client (roots,
// sample, elicit), written as the SDK's docs/client.md shows: the request's
// ServerSession ListRoots, CreateMessage and Elicit from inside a tool
// handler. The server does not check the client's capabilities itself:
// whatever the SDK does is what the suite sees.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

type SampleInput struct {
	Prompt string `json:"prompt"`
}

type ElicitInput struct {
	Message string `json:"message"`
}

func toolError(s string) *mcp.CallToolResult {
	res := text(s)
	res.IsError = true
	return res
}

// clientFailed is the isError result of a request the SDK did not send, or
// that the client answered with a JSON-RPC error (a *jsonrpc.Error).
func clientFailed(method string, err error) *mcp.CallToolResult {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return toolError(fmt.Sprintf("the client answered %s with error %d: %s", method, werr.Code, werr.Message))
	}
	return toolError(err.Error())
}

func roots(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.ListRoots(ctx, nil)
	if err != nil {
		return clientFailed("roots/list", err), nil, nil
	}
	uris := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return text(strings.Join(uris, "\n")), nil, nil
}

func sample(ctx context.Context, req *mcp.CallToolRequest, in SampleInput) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		return clientFailed("sampling/createMessage", err), nil, nil
	}
	t, ok := res.Content.(*mcp.TextContent)
	if !ok {
		return toolError("the client's sampling result has no text content"), nil, nil
	}
	return text(fmt.Sprintf("%s (model %s)", t.Text, res.Model)), nil, nil
}

func elicit(ctx context.Context, req *mcp.CallToolRequest, in ElicitInput) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Message: in.Message,
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Name"}},
			"required":   []string{"name"},
		},
	})
	if err != nil {
		return clientFailed("elicitation/create", err), nil, nil
	}
	if res.Action == "accept" && res.Content != nil {
		b, err := json.Marshal(res.Content)
		if err != nil {
			return nil, nil, err
		}
		return text("accept " + string(b)), nil, nil
	}
	return text(res.Action), nil, nil
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "conform-mcp-go-sdk", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Returns its text argument as text content."}, echo)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two numbers and returns the sum as text content."}, add)
	mcp.AddTool(server, &mcp.Tool{Name: "fail", Description: "Always ends in a tool execution error (isError: true) carrying its message."}, fail)
	mcp.AddTool(server, &mcp.Tool{Name: "progress", Description: "Sends one notifications/progress per step when the request carries a progressToken, then returns."}, progress)
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "Waits ms milliseconds (at most 60000) before returning; notifications/cancelled ends it without a response."}, slow)
	mcp.AddTool(server, &mcp.Tool{Name: "roots", Description: "Asks the client for roots/list and returns the root URIs, one per line."}, roots)
	mcp.AddTool(server, &mcp.Tool{Name: "sample", Description: "Asks the client for sampling/createMessage with the prompt and returns the model's text."}, sample)
	mcp.AddTool(server, &mcp.Tool{Name: "elicit", Description: "Asks the client for elicitation/create (a form with one string field, name) and returns the action and content."}, elicit)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
