package mailchimptest

import (
	"fmt"
	"maps"
	"time"
)

// Lists and campaigns that tests create, update and delete live in an
// overlay on top of the generated ones. Created records take the indexes
// after the generated ones (list cfg.lists, cfg.lists+1, ...; campaign
// cfg.campaigns, ...), so their ids have the generated ones' form and map
// back to their index the same way. The overlay is copied on write and
// read through an atomic pointer: a request takes one snapshot (a view)
// and renders every record of its answer from it.

const (
	entityLists     = "lists"
	entityCampaigns = "campaigns"
)

// listMod is what changed about one list.
type listMod struct {
	created time.Time // zero: a generated list
	rev     int       // renames (Update); 0 keeps the generated name
	deleted bool
}

// campaignMod is what changed about one campaign.
type campaignMod struct {
	created time.Time // zero: a generated campaign
	list    int       // list index of a created campaign; -1: none
	rev     int       // edits (Update); 0 keeps the generated subject and title
	deleted bool
}

// overlay is an immutable snapshot of the created, updated and deleted
// lists and campaigns.
type overlay struct {
	lists        map[int]listMod
	campaigns    map[int]campaignMod
	newLists     int // created lists, deleted ones included
	newCampaigns int
	goneLists    int // deleted lists, created ones included
	goneCamps    int
}

func (o *overlay) clone() *overlay {
	c := *o
	c.lists = maps.Clone(o.lists)
	c.campaigns = maps.Clone(o.campaigns)
	if c.lists == nil {
		c.lists = map[int]listMod{}
	}
	if c.campaigns == nil {
		c.campaigns = map[int]campaignMod{}
	}
	return &c
}

// view is the fake's data as one request sees it: the generated world
// under one snapshot of the overlay.
type view struct {
	c *config
	o *overlay
}

func (s *Server) view() view { return view{c: &s.cfg, o: s.m.ov.Load()} }

// ---------------------------------------------------------------- lists

// listCount is the number of list indexes, deleted lists included.
func (v view) listCount() int { return v.c.lists + v.o.newLists }

// liveLists is the number of lists not deleted.
func (v view) liveLists() int { return v.listCount() - v.o.goneLists }

func (v view) listLive(l int) bool { return l >= 0 && l < v.listCount() && !v.o.lists[l].deleted }

// listIndex maps the id of a live list to its index.
func (v view) listIndex(id string) (int, bool) {
	l, ok := parseHexID(id, listMask, v.listCount())
	return l, ok && v.listLive(l)
}

func (v view) listName(l int) string {
	if rev := v.o.lists[l].rev; rev > 0 {
		return fmt.Sprintf("%s (rev %d)", listName(l), rev)
	}
	return listName(l)
}

func (v view) listCreated(l int) time.Time {
	if t := v.o.lists[l].created; !t.IsZero() {
		return t
	}
	return v.c.listCreated(l)
}

// campaignLastSent is the send time of the last sent campaign to list l
// that is not deleted. Only generated campaigns are ever sent (created ones
// are drafts), and they go to generated lists.
func (v view) campaignLastSent(l int) string {
	c := v.c
	if l >= c.lists || c.campaigns <= l {
		return ""
	}
	if v.o.goneCamps == 0 {
		return c.campaignLastSent(l)
	}
	// The last ten live campaigns of the list, as the generated world
	// looks at its last ten.
	i := l + ((c.campaigns-1-l)/c.lists)*c.lists
	for steps := 0; i >= 0 && steps < 10; i -= c.lists {
		if v.o.campaigns[i].deleted {
			continue
		}
		if campaignStatus(i) == "sent" {
			return ts(campaignSendTime(i))
		}
		steps++
	}
	return ""
}

// campaignsOfList counts the live campaigns, of any status, that use list l.
func (v view) campaignsOfList(l int) int {
	n := 0
	if l < v.c.lists {
		n = v.c.campaignsOfList(l)
	}
	for i, mod := range v.o.campaigns {
		switch {
		case mod.created.IsZero() && mod.deleted && v.c.lists > 0 && i%v.c.lists == l:
			n--
		case !mod.created.IsZero() && !mod.deleted && mod.list == l:
			n++
		}
	}
	return n
}

// list renders list l as it is now.
func (v view) list(l int, ln links) list {
	out := v.c.list(l, ln)
	out.Name = v.listName(l)
	out.DateCreated = ts(v.listCreated(l))
	out.Stats.CampaignCount = int64(v.campaignsOfList(l))
	out.Stats.CampaignLastSent = v.campaignLastSent(l)
	return out
}

// listRef is how a campaign, report or automation names list l: its id,
// whether it still exists, and its name now.
func (v view) listRef(l int) (id string, active bool, name string) {
	return v.c.listID(l), v.listLive(l), v.listName(l)
}

// ---------------------------------------------------------------- campaigns

// campaignCount is the number of campaign indexes, deleted ones included.
func (v view) campaignCount() int { return v.c.campaigns + v.o.newCampaigns }

func (v view) campaignLive(i int) bool {
	return i >= 0 && i < v.campaignCount() && !v.o.campaigns[i].deleted
}

// campaignIndex maps the id of a live campaign to its index.
func (v view) campaignIndex(id string) (int, bool) {
	i, ok := parseHexID(id, campaignMask, v.campaignCount())
	return i, ok && v.campaignLive(i)
}

func (v view) isNewCampaign(i int) bool { return i >= v.c.campaigns }

// campaignList is the index of the list campaign i uses.
func (v view) campaignList(i int) (int, bool) {
	if v.isNewCampaign(i) {
		l := v.o.campaigns[i].list
		return l, l >= 0
	}
	return v.c.campaignListIndex(i)
}

// campaignStatus: created campaigns are drafts.
func (v view) campaignStatus(i int) string {
	if v.isNewCampaign(i) {
		return "save"
	}
	return campaignStatus(i)
}

func (v view) campaignCreateTime(i int) time.Time {
	if v.isNewCampaign(i) {
		return v.o.campaigns[i].created
	}
	return campaignCreateTime(i)
}

// campaignSendTime returns when campaign i was sent or is scheduled;
// false for drafts and paused campaigns.
func (v view) campaignSendTime(i int) (time.Time, bool) {
	if v.isNewCampaign(i) || campaignSendTimeString(i) == "" {
		return time.Time{}, false
	}
	return campaignSendTime(i), true
}

func (v view) recipients(i int) recipients {
	l, ok := v.campaignList(i)
	if !ok {
		return recipients{}
	}
	id, active, name := v.listRef(l)
	return recipients{ListID: id, ListIsActive: active, ListName: name, RecipientCount: int64(v.c.members)}
}

// campaign renders campaign i as it is now.
func (v view) campaign(i int, ln links) campaign {
	cp := v.c.campaign(i, ln)
	cp.Recipients = v.recipients(i)
	if rev := v.o.campaigns[i].rev; rev > 0 {
		cp.Settings.SubjectLine = fmt.Sprintf("%s (rev %d)", cp.Settings.SubjectLine, rev)
		cp.Settings.Title = fmt.Sprintf("%s (rev %d)", cp.Settings.Title, rev)
	}
	if v.isNewCampaign(i) {
		cp.CreateTime = ts(v.campaignCreateTime(i))
		cp.Status = "save"
		cp.SendTime = ""
		cp.EmailsSent = 0
		cp.Resendable = false
		cp.ReportSummary = nil
	}
	return cp
}

// sentCampaign maps the id of a live sent campaign to its index.
func (v view) sentCampaign(id string) (int, bool) {
	i, ok := v.campaignIndex(id)
	if !ok || v.campaignStatus(i) != "sent" {
		return 0, false
	}
	return i, true
}

// report renders the report of sent campaign i as it is now.
func (v view) report(i int, ln links) report {
	rp := v.c.report(i, ln)
	cp := v.campaign(i, ln)
	rp.CampaignTitle, rp.SubjectLine = cp.Settings.Title, cp.Settings.SubjectLine
	rp.ListID, rp.ListIsActive, rp.ListName = cp.Recipients.ListID, cp.Recipients.ListIsActive, cp.Recipients.ListName
	return rp
}
