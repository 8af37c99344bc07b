package stripetest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// mutable are the entities Create, Update and Delete change (Stripe can
// delete customers, products, prices and draft invoices, and cancels a
// subscription: the others are never deleted).
var mutable = []string{"customers", "invoices", "subscriptions", "products", "prices"}

// eventPrefix is the prefix of the types of an entity's events.
func eventPrefix(entity string) string {
	if entity == "subscriptions" {
		return "customer.subscription"
	}
	return objects[entity]
}

// MutableEntities implements fakeserver.Mutable.
func (s *Server) MutableEntities() []string { return slices.Clone(mutable) }

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// IDs implements fakeserver.Mutable: the live objects' ids, oldest first.
func (s *Server) IDs(entity string) []string {
	if t := s.tables[entity]; t != nil {
		return t.IDs()
	}
	return nil
}

// Create adds an object to entity, created now, with its .created event.
func (s *Server) Create(entity string) (string, error) {
	if !slices.Contains(mutable, entity) {
		return "", fmt.Errorf("stripetest: cannot create %s", entity)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[entity]
	now := s.clock.Now()
	i := len(t.Rows(func(fakeserver.Row[object]) bool { return true }))
	o := s.make(entity, i, now)
	if entity == "invoices" {
		o["status"], o["paid"], o["amount_paid"], o["amount_remaining"] = "draft", false, int64(0), o["amount_due"]
	}
	t.Put(o["id"].(string), o, now)
	s.event(eventPrefix(entity)+".created", o, nil)
	return o["id"].(string), nil
}

// Update changes an object's name, email, description or nickname (and
// metadata), with its .updated event and the previous values.
func (s *Server) Update(entity, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[entity]
	if t == nil || !slices.Contains(mutable, entity) {
		return fmt.Errorf("stripetest: cannot update %s", entity)
	}
	old, ok := t.Live(id)
	if !ok {
		return fmt.Errorf("stripetest: no %s %s", entity, id)
	}
	s.seq++
	o := maps.Clone(old)
	field := map[string]string{"customers": "name", "invoices": "description", "subscriptions": "description", "products": "name", "prices": "nickname"}[entity]
	o[field] = fmt.Sprintf("changed %d", s.seq)
	o["metadata"] = map[string]any{"revision": fmt.Sprint(s.seq)}
	if entity == "products" {
		o["updated"] = s.clock.Now().Unix()
	}
	t.Put(id, o, s.clock.Now())
	s.event(eventPrefix(entity)+".updated", o, object{field: old[field], "metadata": old["metadata"]})
	return nil
}

// Delete deletes an object as Stripe does: a customer, product, price or
// invoice leaves its list (a customer's get answers deleted: true), a
// subscription is canceled; each with its .deleted event.
func (s *Server) Delete(entity, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tables[entity]
	if t == nil || !slices.Contains(mutable, entity) {
		return fmt.Errorf("stripetest: cannot delete %s", entity)
	}
	old, ok := t.Live(id)
	if !ok {
		return fmt.Errorf("stripetest: no %s %s", entity, id)
	}
	now := s.clock.Now()
	if entity == "subscriptions" {
		o := maps.Clone(old)
		o["status"], o["canceled_at"] = "canceled", now.Unix()
		t.Put(id, o, now)
		s.event("customer.subscription.deleted", o, nil)
		return nil
	}
	t.Delete(id, now)
	s.event(eventPrefix(entity)+".deleted", old, nil) // the object as it was
	return nil
}

// event records an event of type typ about o now; previous, when set,
// holds the values an update changed. s.mu is held.
func (s *Server) event(typ string, o, previous object) {
	s.seq++
	id := fmt.Sprintf("evt_%014d", s.seq)
	data := object{"object": o}
	if previous != nil {
		data["previous_attributes"] = previous
	}
	now := s.clock.Now()
	s.events.Put(id, object{"id": id, "object": "event", "api_version": Version, "created": now.Unix(), "data": data, "livemode": false,
		"pending_webhooks": 0, "request": object{"id": nil, "idempotency_key": nil}, "type": typ}, now)
}
