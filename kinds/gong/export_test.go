package gong

// CallsExtensiveScope is the copy scope calls_extensive will have (see
// callsExtensiveScope), for the tests of its params.
var CallsExtensiveScope = callsExtensiveScope
