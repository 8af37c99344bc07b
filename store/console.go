package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// The reads of an operator's console: pages of connectors with their
// copies' state summed up in one query, the tenants, a connector's recent
// events, and deliveries by state. Each is one SQL statement.

// ConnectorSummary is a connector with its copies' state summed up.
type ConnectorSummary struct {
	Connector
	// Seq orders the connectors by creation; ConnectorQuery.After takes
	// the last one of a page.
	Seq int64
	// Copies counts its registered copies, Failing those whose last
	// synchronization failed, AuthFailing those of them that failed with
	// class auth (FailureAuth).
	Copies, Failing, AuthFailing int
	// LastSynced is the latest synchronization of any of its copies (zero:
	// none yet).
	LastSynced time.Time
}

// ConnectorSummaries returns up to q.Limit connectors that q selects,
// oldest first (q.After pages; q.Before is ignored), each with its copies
// summed up, in one query. q.Tenant may be "" (every tenant: an operator's
// view).
func (s *Store) ConnectorSummaries(ctx context.Context, q ConnectorQuery) ([]ConnectorSummary, error) {
	const op = "list connectors"
	if err := s.connectorsReady(op); err != nil {
		return nil, err
	}
	if err := s.failuresReady(op); err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Limit = min(q.Limit, 1000)
	where, args, ok := s.connectorFilter(q, "c.")
	if !ok {
		return nil, nil
	}
	where = append(where, "c.seq > "+s.d.ph(len(args)+1))
	args = append(args, q.After)
	d := s.d
	args = append(args, q.Limit)
	// Each connector's copies are summed up by correlated subqueries on
	// the copies' primary key (connector, entity): a page costs a few
	// index probes per connector, and no grouping of wide rows.
	sub := func(agg string) string {
		return "(SELECT " + agg + " FROM tributary_entities e WHERE e.connector = c.id)"
	}
	query := "SELECT " + s.connectorCols("c.") + ", c.seq, " +
		sub("count(*)") + ", " + sub("count(e.failure_class)") + ", " + sub("count(CASE WHEN e.failure_class = 'auth' THEN 1 END)") + ", " + sub("max(e.synced_at)") +
		" FROM tributary_connectors c WHERE " + strings.Join(where, " AND ") + " ORDER BY c.seq LIMIT " + d.ph(len(args))
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	defer rows.Close()
	var out []ConnectorSummary
	for rows.Next() {
		var cs ConnectorSummary
		var synced sql.NullInt64
		c, err := scanConnector(rows, &cs.Seq, &cs.Copies, &cs.Failing, &cs.AuthFailing, &synced)
		if err != nil {
			return nil, d.wrap(op, err)
		}
		cs.Connector = *c
		if synced.Valid {
			cs.LastSynced = time.UnixMilli(synced.Int64).UTC()
		}
		out = append(out, cs)
	}
	return out, d.wrap(op, rows.Err())
}

// Tenants lists the tenants that have connectors, in order.
func (s *Store) Tenants(ctx context.Context) ([]string, error) {
	const op = "list tenants"
	if err := s.connectorsReady(op); err != nil {
		return nil, err
	}
	// One probe of the (tenant, seq) index a tenant, each for the least
	// tenant past the last, rather than a scan of every connector: the
	// console reads this for every page, and at 10,000 connectors the scan
	// was its costlier statement on a busy server.
	rows, err := s.r.QueryContext(ctx, `WITH RECURSIVE t(tenant) AS (
		SELECT min(tenant) FROM tributary_connectors
		UNION ALL
		SELECT (SELECT min(c.tenant) FROM tributary_connectors c WHERE c.tenant > t.tenant) FROM t WHERE t.tenant IS NOT NULL)
	SELECT tenant FROM t WHERE tenant IS NOT NULL`)
	if err != nil {
		return nil, s.d.wrap(op, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, s.d.wrap(op, err)
		}
		out = append(out, t)
	}
	return out, s.d.wrap(op, rows.Err())
}

// ConnectorEvents returns the newest events of connector of type typ,
// newest first, at most limit (default 100).
func (s *Store) ConnectorEvents(ctx context.Context, connector, typ string, limit int) ([]Event, error) {
	const op = "events"
	if err := s.outboxReady(op); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 100
	}
	d := s.d
	rows, err := s.r.QueryContext(ctx, "SELECT id, type, tenant, connector, created_at, body FROM tributary_events WHERE connector = "+d.ph(1)+
		" AND type = "+d.ph(2)+" ORDER BY seq DESC LIMIT "+d.ph(3), connector, typ, limit)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var ev Event
		var created int64
		if err := rows.Scan(&ev.ID, &ev.Type, &ev.Tenant, &ev.Connector, &created, &ev.Body); err != nil {
			return nil, d.wrap(op, err)
		}
		ev.Created = time.UnixMilli(created).UTC()
		out = append(out, ev)
	}
	return out, d.wrap(op, rows.Err())
}

// DeliveryInfo is one delivery as a console lists it.
type DeliveryInfo struct {
	DeliveryRecord
	// EventID, EventType and Tenant are its event's.
	EventID, EventType, Tenant, Connector string
	// Created is when the delivery was made.
	Created time.Time
}

// Deliveries lists the newest deliveries to endpoint in state, newest
// first, at most limit (default 100).
func (s *Store) Deliveries(ctx context.Context, endpoint string, state DeliveryState, limit int) ([]DeliveryInfo, error) {
	const op = "deliveries"
	if err := s.outboxReady(op); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = 100
	}
	d := s.d
	rows, err := s.r.QueryContext(ctx, "SELECT dl.id, dl.endpoint, dl.state, dl.attempts, dl.last_status, dl.last_error, dl.created_at, ev.id, ev.type, ev.tenant, ev.connector"+
		" FROM tributary_deliveries dl JOIN tributary_events ev ON ev.id = dl.event_id WHERE dl.endpoint = "+d.ph(1)+" AND dl.state = "+d.ph(2)+
		" ORDER BY dl.id DESC LIMIT "+d.ph(3), endpoint, string(state), limit)
	if err != nil {
		return nil, d.wrap(op, err)
	}
	defer rows.Close()
	var out []DeliveryInfo
	for rows.Next() {
		var di DeliveryInfo
		var st string
		var status sql.NullInt64
		var msg sql.NullString
		var created int64
		if err := rows.Scan(&di.ID, &di.Endpoint, &st, &di.Attempts, &status, &msg, &created, &di.EventID, &di.EventType, &di.Tenant, &di.Connector); err != nil {
			return nil, d.wrap(op, err)
		}
		di.State, di.LastStatus, di.LastError, di.Created = DeliveryState(st), int(status.Int64), msg.String, time.UnixMilli(created).UTC()
		out = append(out, di)
	}
	return out, d.wrap(op, rows.Err())
}

// SealedKeys counts the connectors by what keyID says of their sealed
// credentials (the id of the key that sealed them): the progress of a key
// rotation.
func (s *Store) SealedKeys(ctx context.Context, keyID func(sealed []byte) string) (map[string]int, error) {
	out := map[string]int{}
	err := s.EachSealed(ctx, func(_ string, sealed []byte) error {
		out[keyID(sealed)]++
		return nil
	})
	return out, err
}

// EachSealed calls fn with every connector's id and sealed credentials,
// in no particular order, reading them as it goes (a store of any size);
// an error of fn stops it and is returned. fn must not keep sealed, whose
// bytes the next row reuses.
func (s *Store) EachSealed(ctx context.Context, fn func(id string, sealed []byte) error) error {
	const op = "list connectors"
	if err := s.connectorsReady(op); err != nil {
		return err
	}
	rows, err := s.r.QueryContext(ctx, "SELECT id, sealed FROM tributary_connectors")
	if err != nil {
		return s.d.wrap(op, err)
	}
	defer rows.Close()
	var id string
	var b sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &b); err != nil {
			return s.d.wrap(op, err)
		}
		if err := fn(id, b); err != nil {
			return err
		}
	}
	return s.d.wrap(op, rows.Err())
}
