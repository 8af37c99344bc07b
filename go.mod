module github.com/tributary-dev/tributary

go 1.26.0

require (
	github.com/hashicorp/go-retryablehttp v0.7.8
	golang.org/x/time v0.16.0
)

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/jarcoal/httpmock v1.4.2 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
)
