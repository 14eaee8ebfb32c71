package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// fakeIUT plays an IUT for tests that run conform as a child:
//
//	bigframes N SIZE  before its first reply, N unsolicited control
//	                  responses of SIZE bytes (distinct frames the summary
//	                  keeps), then a success reply to every request
//	drain N           reads N lines, then exits 0
//	wide N            answers every request with a success reply whose
//	                  body has N members beside still_queued (allowed:
//	                  members the schema does not declare)
func fakeIUT(args []string) int {
	if len(args) < 2 {
		return 2
	}
	n, _ := strconv.Atoi(args[1])
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	switch args[0] {
	case "drain":
		for n > 0 {
			_, err := in.ReadSlice('\n')
			switch err {
			case nil:
				n--
			case bufio.ErrBufferFull:
			default:
				return 3
			}
		}
		return 0
	case "wide":
		var members strings.Builder
		for i := range n {
			fmt.Fprintf(&members, `,"k%07d":0`, i)
		}
		out := bufio.NewWriterSize(os.Stdout, 1<<20)
		for {
			line, err := in.ReadBytes('\n')
			var req struct {
				Type      string `json:"type"`
				RequestID any    `json:"request_id"`
			}
			if json.Unmarshal(line, &req) == nil && req.Type == "control_request" {
				id, _ := json.Marshal(req.RequestID)
				fmt.Fprintf(out, `{"type":"control_response","response":{"subtype":"success","request_id":%s,"response":{"still_queued":[]%s}}}`+"\n", id, members.String())
				if out.Flush() != nil {
					return 0
				}
			}
			if err != nil {
				return 0
			}
		}
	case "bigframes":
		size, _ := strconv.Atoi(args[2])
		out := bufio.NewWriterSize(os.Stdout, 1<<20)
		pad := strings.Repeat("x", size-120)
		first := true
		for {
			line, err := in.ReadBytes('\n')
			var req struct {
				Type      string `json:"type"`
				RequestID any    `json:"request_id"`
			}
			if json.Unmarshal(line, &req) == nil && req.Type == "control_request" {
				if first {
					first = false
					for i := range n {
						fmt.Fprintf(out, `{"type":"control_response","response":{"subtype":"success","request_id":"big-%d","response":{"pad":"%s"}}}`+"\n", i, pad)
					}
				}
				id, _ := json.Marshal(req.RequestID)
				fmt.Fprintf(out, `{"type":"control_response","response":{"subtype":"success","request_id":%s,"response":{"still_queued":[]}}}`+"\n", id)
				if out.Flush() != nil {
					return 0
				}
			}
			if err != nil {
				return 0
			}
		}
	}
	return 2
}
