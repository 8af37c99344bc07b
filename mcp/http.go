package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler serves the server over MCP's streamable HTTP transport. With
// a token, every request must carry "Authorization: Bearer <token>"
// (compared in constant time; a wrong or missing token is a 401); an
// empty token serves without authentication, which only a loopback
// address should do (see IsLoopback).
func (s *Server) HTTPHandler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp },
		&sdk.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute, Logger: s.opts.Logger})
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte(token))
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	return auth.RequireBearerToken(verify, nil)(h)
}

// IsLoopback reports whether a listen address (host:port) only accepts
// connections from this machine: localhost or a loopback IP. An empty host
// listens on every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
