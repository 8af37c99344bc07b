package fakeserver

// Mutable is a fake whose records a test changes while it runs, at the
// fake's clock: what incremental synchronization is tested against. Every
// kind's fake implements it (the methods are exported on each
// <kind>test.Server, so that users can test their own incremental code),
// and serves the vendor's change feeds with the vendor's documented
// semantics: a record created, updated or deleted at time T is in the
// feed's answers for every since at or before T, and every list, get and
// search of the fake shows the change.
type Mutable interface {
	// MutableEntities lists the catalogue entities whose records Create,
	// Update and Delete change.
	MutableEntities() []string
	// IDs returns the ids of entity's live records (deleted ones left
	// out), as the record's id field renders them, in a stable order.
	IDs(entity string) []string
	// Create adds a record to entity, modified now, and returns its id.
	Create(entity string) (string, error)
	// Update changes searchable fields of a record and sets its
	// last-modified time to now.
	Update(entity, id string) error
	// Delete deletes a record as the vendor does (Zendesk: the ticket
	// shows in the export with status "deleted"; HubSpot: archived;
	// elsewhere it is simply gone).
	Delete(entity, id string) error
	// Clock is the fake's clock: what "now" is for mutations and feeds.
	Clock() *Clock
}
