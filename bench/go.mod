module github.com/tributary-dev/tributary/bench

go 1.26.0

require (
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3
	github.com/goccy/go-json v0.12.0
	github.com/google/go-github/v92 v92.0.0
	github.com/tributary-dev/tributary v0.0.0
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)

replace github.com/tributary-dev/tributary => ../
