package salesforce

import (
	"fmt"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
)

// feedOverlap is read again before the checkpoint on every sync.
// SystemModstamp is taken when a record's transaction starts and the
// record is seen when it commits, so a change can show up with a stamp a
// little older than others already read; two minutes covers ordinary
// transactions and clock skew.
const feedOverlap = 2 * time.Minute

// feed is the change feed of an sObject's entity: its list query, run
// against /queryAll from the checkpoint.
func feed(o sobject) *tributary.Feed {
	return &tributary.Feed{
		Doc: "SOQL through /queryAll, WHERE SystemModstamp >= the checkpoint ORDER BY SystemModstamp ASC, paged by " +
			"nextRecordsUrl; deleted records (in the recycle bin) arrive with IsDeleted true; archived tasks arrive too. " +
			"The caller's q gains IsDeleted and SystemModstamp when it does not select them, and may not have " +
			"LIMIT, OFFSET, GROUP BY, HAVING, FOR or aggregates. Salesforce's /sobjects/" + o.name +
			"/deleted/?start=&end= (deletions of the last 15 days) is not used: queryAll reports them in the same pass.",
		Params: func(base tributary.Params, since time.Time) tributary.Params {
			q, _ := base["q"].(string)
			soql, _ := feedQuery(q, since)
			return tributary.Params{"q": soql}
		},
		Check: func(base tributary.Params) (string, string) {
			q, _ := base["q"].(string)
			if q == "" {
				return "q", "the change feed reads the entity's list query: give q, SELECT <fields> FROM " + o.name
			}
			if msg := checkQuery(o, q); msg != "" {
				return "q", msg
			}
			if _, msg := feedQuery(q, time.Time{}); msg != "" {
				return "q", msg
			}
			return "", ""
		},
		Changed: "SystemModstamp",
		Overlap: feedOverlap,
		Deleted: func(r tributary.Record) bool {
			v, _ := r.Field("IsDeleted")
			return v == true
		},
	}
}

// clause is a top-level clause of a SOQL query: its keyword (upper case)
// and where it starts and its text begins.
type clause struct {
	kw         string
	start, val int
}

// feedQuery rewrites the SOQL query q of a list into the query of its
// change feed from since: IsDeleted and SystemModstamp selected, the
// caller's WHERE (if any) ANDed with SystemModstamp >= since (nothing for
// a zero since), the caller's ORDER BY replaced by ORDER BY SystemModstamp
// ASC. It returns why q cannot be a feed, or "".
func feedQuery(q string, since time.Time) (string, string) {
	s := &scanner{src: q}
	first := s.word()
	if !strings.EqualFold(first, "SELECT") {
		return "", "the change feed needs a SELECT query"
	}
	// The SELECT list, up to the outermost FROM.
	have := map[string]bool{}
	from := -1
	for from < 0 {
		w := s.word()
		if w == "" {
			return "", "the query has no FROM clause"
		}
		start := s.pos - len(w)
		if s.depth != 0 {
			continue
		}
		up := strings.ToUpper(w)
		switch {
		case up == "FROM":
			from = start
			continue
		case s.skipSpace() == '(':
			switch up {
			case "COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX":
				return "", "a change feed reads records, not aggregates: remove " + up + "()"
			case "FIELDS":
				inner := &scanner{src: q, pos: s.pos}
				if arg := inner.word(); !strings.EqualFold(arg, "STANDARD") {
					return "", "FIELDS(" + strings.ToUpper(arg) + ") needs a LIMIT, which a change feed cannot have: list the fields or use FIELDS(STANDARD)"
				}
				have["ISDELETED"], have["SYSTEMMODSTAMP"] = true, true
			}
		}
		have[up] = true
	}
	s.word() // the object
	// The clauses after FROM.
	var clauses []clause
	for {
		w := s.word()
		if w == "" {
			break
		}
		start := s.pos - len(w)
		if s.depth != 0 {
			continue
		}
		switch up := strings.ToUpper(w); up {
		case "WHERE", "WITH", "ORDER":
			val := s.pos
			if up == "ORDER" {
				s.word() // BY
				val = s.pos
			}
			clauses = append(clauses, clause{kw: up, start: start, val: val})
		case "GROUP", "HAVING", "LIMIT", "OFFSET", "FOR":
			return "", fmt.Sprintf("a change feed reads every changed record in SystemModstamp order: remove %s from the query", clauseName(up))
		}
	}
	end := len(q)
	if len(clauses) > 0 {
		end = clauses[0].start
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(q[:from]))
	for _, f := range []string{"IsDeleted", "SystemModstamp"} {
		if !have[strings.ToUpper(f)] {
			b.WriteString(", " + f)
		}
	}
	b.WriteString(" " + strings.TrimSpace(q[from:end]))
	text := func(k int) string {
		stop := len(q)
		if k+1 < len(clauses) {
			stop = clauses[k+1].start
		}
		return strings.TrimSpace(q[clauses[k].val:stop])
	}
	var where, with string
	for k, c := range clauses {
		switch c.kw {
		case "WHERE":
			where = text(k)
		case "WITH":
			with = text(k)
		}
	}
	cond := ""
	if !since.IsZero() {
		cond = "SystemModstamp >= " + since.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
	}
	switch {
	case where != "" && cond != "":
		b.WriteString(" WHERE (" + where + ") AND " + cond)
	case where != "":
		b.WriteString(" WHERE " + where)
	case cond != "":
		b.WriteString(" WHERE " + cond)
	}
	if with != "" {
		b.WriteString(" WITH " + with)
	}
	b.WriteString(" ORDER BY SystemModstamp ASC")
	return b.String(), ""
}

func clauseName(kw string) string {
	switch kw {
	case "GROUP", "ORDER":
		return kw + " BY"
	}
	return kw
}
