package engine

import "github.com/tributary-dev/tributary"

// OpenFrom is every kind's Open: the contract's credentials object read by
// fromMap into the kind's typed credentials, then the kind's New. An error
// of either is returned with a nil Connector, never a Connector holding a
// nil client.
func OpenFrom[C any, K tributary.Connector](credentials map[string]any, fromMap func(map[string]any) (C, error),
	newKind func(C, ...tributary.Option) (K, error), opts ...tributary.Option) (tributary.Connector, error) {
	creds, err := fromMap(credentials)
	if err != nil {
		return nil, err
	}
	k, err := newKind(creds, opts...)
	if err != nil {
		return nil, err
	}
	return k, nil
}
