// Package bench compares Tributary with other Go clients of the same APIs,
// on the same in-process fakes. It is a separate module so that the
// library's go.mod never depends on the clients it is compared with.
//
//	cd bench && go test -run '^$' -bench . -benchtime 5x
package bench
