package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/mcp"
	"github.com/tributary-dev/tributary/sandbox"
)

// BenchmarkToolCall compares one operation run through the MCP server (the
// SDK's in-memory transport, JSON both ways, shaping the answer) with the
// same operation run on the library directly, against the sandbox's
// Zendesk fake. Each reports its median latency (p50-ms); the difference is
// what a tool call adds. mcp-wire is the server alone (raw JSON-RPC lines
// over pipes), mcp adds the SDK's client decoding the answer; sdk-wire and
// sdk send the same answer from a bare SDK server whose tool does nothing
// but return it: what the SDK costs for an answer of that size, whoever
// builds it.
//
//	go test -run '^$' -bench ToolCall -benchtime 2000x ./mcp/
func BenchmarkToolCall(b *testing.B) {
	sb := sandbox.New()
	defer sb.Close()
	conn, err := sb.Open("zendesk-support")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := mcp.New([]mcp.Source{{Name: "support", Conn: conn}}, mcp.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	cs := connect(b, srv)
	ctx := context.Background()

	for _, op := range []struct {
		name  string
		req   tributary.Request
		limit int
	}{
		{"get", tributary.Request{Entity: "tickets", Action: "get", Params: tributary.Params{"ticket_id": 35436}}, 1},
		{"list25", tributary.Request{Entity: "tickets", Action: "list", Params: tributary.Params{"per_page": 25}}, 25},
	} {
		b.Run(op.name+"/direct", func(b *testing.B) {
			p50(b, func() {
				if _, err := tributary.Execute(ctx, conn, op.req); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(op.name+"/mcp-wire", func(b *testing.B) {
			args := map[string]any{"connector": "support", "entity": op.req.Entity, "action": string(op.req.Action), "params": op.req.Params, "limit": op.limit}
			wire := newWireClient(b, srv.Run)
			p50(b, func() { wire.call(b, "execute", args) })
		})
		b.Run(op.name+"/mcp", func(b *testing.B) {
			args := map[string]any{"connector": "support", "entity": op.req.Entity, "action": string(op.req.Action), "params": op.req.Params, "limit": op.limit}
			p50(b, func() {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			})
		})

		// The same answer from a bare SDK server.
		args := map[string]any{"connector": "support", "entity": op.req.Entity, "action": string(op.req.Action), "params": op.req.Params, "limit": op.limit}
		bare := bareServer(b, newWireClient(b, srv.Run).roundTrip(b, "execute", args))
		b.Run(op.name+"/sdk-wire", func(b *testing.B) {
			wire := newWireClient(b, bare.Run)
			p50(b, func() { wire.call(b, "execute", args) })
		})
		b.Run(op.name+"/sdk", func(b *testing.B) {
			cs := connectSDK(b, bare)
			p50(b, func() {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			})
		})
	}
}

// bareServer is an SDK server whose one tool, execute, returns the result
// of the JSON-RPC answer line, as it is (a text block and the structured
// content as raw JSON), whatever its arguments.
func bareServer(b *testing.B, line []byte) *sdk.Server {
	var msg struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &msg); err != nil || len(msg.Result.Content) != 1 {
		b.Fatalf("%v: %s", err, line)
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg.Result.Content[0].Text}}, StructuredContent: msg.Result.StructuredContent}
	s := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "execute", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return res, nil })
	return s
}

// connectSDK runs a session of s with an SDK client over the in-memory
// transport.
func connectSDK(b *testing.B, s *sdk.Server) *sdk.ClientSession {
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// wireClient speaks JSON-RPC lines to a server session over pipes and
// reads each answer as bytes, without decoding it: what the server and
// the transport cost, without a client's decoding of the answer.
type wireClient struct {
	w  *io.PipeWriter
	r  *bufio.Reader
	id int
}

// newWireClient starts a session with run (a server's Run) and
// initializes it.
func newWireClient(b testing.TB, run func(context.Context, sdk.Transport) error) *wireClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = run(context.Background(), &sdk.IOTransport{Reader: inR, Writer: outW})
		outW.Close()
	}()
	b.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-done
	})
	c := &wireClient{w: inW, r: bufio.NewReaderSize(outR, 1<<20)}
	c.send(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	c.line(b)
	c.send(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *wireClient) send(b testing.TB, msg string) {
	if _, err := io.WriteString(c.w, msg+"\n"); err != nil {
		b.Fatal(err)
	}
}

func (c *wireClient) line(b testing.TB) []byte {
	l, err := c.r.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	return l
}

func (c *wireClient) call(b testing.TB, tool string, args any) {
	if l := c.roundTrip(b, tool, args); bytes.Contains(l, []byte(`"isError":true`)) || !bytes.Contains(l, []byte(`"result"`)) {
		b.Fatalf("%s", l)
	}
}

// roundTrip calls tool and returns the answer's JSON-RPC line as sent.
func (c *wireClient) roundTrip(b testing.TB, tool string, args any) []byte {
	c.id++
	p, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	c.send(b, string(p))
	return c.line(b)
}

// p50 runs f b.N times and reports the median latency.
func p50(b *testing.B, f func()) {
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		f()
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	}
}
