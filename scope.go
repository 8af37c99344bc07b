package tributary

// Scope declares how a complete copy of a searchable entity is built with
// no list params from the caller (the copy's scope is data, read by package
// replica's one mechanism). nil: the entity's list needs no params, or it
// cannot be copied without them.
type Scope struct {
	// Doc says in a few words what the copy covers, for people (describe shows it).
	Doc string
	// Params returns the list params of a walk over the whole entity
	// (Salesforce: a SOQL query generated from the entity's catalogue fields).
	Params func() Params
}

// CopyParams returns the list params a copy of e is walked with: p when the
// caller gave any, else the params of e's Scope when it has one, else p.
// A change feed reads the copy with the same params (its base).
func (e Entity) CopyParams(p Params) Params {
	if len(p) == 0 && e.Scope != nil && e.Scope.Params != nil {
		return e.Scope.Params()
	}
	return p
}
