package ui

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/store"
)

// maxOverviewScan bounds how many records one overview reads. The store has
// no aggregate query yet, so the overview counts what ListFailures returns;
// past this many records in the range the chart says that it is partial
// rather than let one page view read a tenant's whole history.
const maxOverviewScan = 10_000

// overviewRange is one choice of time range, with its bucket width.
type overviewRange struct {
	Key, Label string
	span       time.Duration
	bucket     time.Duration
	tickEvery  int    // label every n-th bucket
	tickLayout string // time layout of the labels
}

var overviewRanges = []overviewRange{
	{"24h", "Last 24 hours", 24 * time.Hour, time.Hour, 3, "15:04"},
	{"7d", "Last 7 days", 7 * 24 * time.Hour, 6 * time.Hour, 4, "Mon 02"},
	{"30d", "Last 30 days", 30 * 24 * time.Hour, 24 * time.Hour, 5, "Jan 02"},
}

var classes = []string{store.ClassCapability, store.ClassReliability, store.ClassGovernance}

type rangeLink struct {
	Key, Label, URL string
	Active          bool
}

type countRow struct {
	Label, Class, URL string
	Count             int
}

type bucketRow struct {
	Label  string
	Counts []int // by classes
	Total  int
}

type overviewView struct {
	Ranges    []rangeLink
	Range     overviewRange
	Since     time.Time
	Until     time.Time
	Total     int
	ByClass   []countRow
	TopCodes  []countRow
	TopTools  []countRow
	Truncated bool
	Chart     chart
	Buckets   []bucketRow
}

func (h *handler) overview(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	rg := overviewRanges[0]
	for _, o := range overviewRanges {
		if o.Key == r.URL.Query().Get("range") {
			rg = o
		}
	}
	now := h.cfg.Now().UTC()
	until := now.Truncate(rg.bucket).Add(rg.bucket)
	since := until.Add(-rg.span)
	n := int(rg.span / rg.bucket)

	v := overviewView{Range: rg, Since: since, Until: until}
	for _, o := range overviewRanges {
		v.Ranges = append(v.Ranges, rangeLink{Key: o.Key, Label: o.Label, URL: basePath + "?range=" + o.Key, Active: o.Key == rg.Key})
	}
	counts := make([][]int, n) // bucket → class → count
	for i := range counts {
		counts[i] = make([]int, len(classes))
	}
	byClass := map[string]int{}
	byCode := map[[2]string]int{}
	byTool := map[string]int{}

	// Each read holds at most the byte budget of records; the count reads on page by page.
	q := store.ListQuery{Filter: store.Filter{Since: since, Until: until}, Limit: store.MaxListLimit, MaxBytes: h.cfg.MaxListBytes}
	for scanned := 0; scanned < maxOverviewScan; {
		rows, err := h.cfg.Store.ListFailures(r.Context(), p.TenantID, q)
		if err != nil {
			h.storeUnavailable(w, r, "overview", err)
			return
		}
		end, more := store.PageEnd(rows, q.Limit, q.MaxBytes)
		rows = rows[:end]
		for _, f := range rows {
			b := int(f.CreatedAt.Sub(since) / rg.bucket)
			ci := slices.Index(classes, f.Class)
			if b >= 0 && b < n && ci >= 0 {
				counts[b][ci]++
			}
			byClass[f.Class]++
			byCode[[2]string{f.Code, f.Class}]++
			byTool[f.Tool]++
			v.Total++
		}
		scanned += len(rows)
		if !more && len(rows) < q.Limit {
			break
		}
		if scanned >= maxOverviewScan {
			v.Truncated = true
			break
		}
		last := rows[len(rows)-1].ID
		q.After = &last
	}

	sinceInput, untilInput := formatInputTime(since), formatInputTime(until)
	for _, c := range classes {
		v.ByClass = append(v.ByClass, countRow{Label: c, Class: c, Count: byClass[c],
			URL: listURL(listFilter{Class: c, Since: sinceInput, Until: untilInput}, "")})
	}
	for k, c := range byCode {
		v.TopCodes = append(v.TopCodes, countRow{Label: k[0], Class: k[1], Count: c,
			URL: listURL(listFilter{Code: k[0], Class: k[1], Since: sinceInput, Until: untilInput}, "")})
	}
	for k, c := range byTool {
		v.TopTools = append(v.TopTools, countRow{Label: k, Count: c,
			URL: listURL(listFilter{Tool: k, Since: sinceInput, Until: untilInput}, "")})
	}
	top := func(rows []countRow) []countRow {
		slices.SortFunc(rows, func(a, b countRow) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Label, b.Label))
		})
		return rows[:min(len(rows), 8)]
	}
	v.TopCodes, v.TopTools = top(v.TopCodes), top(v.TopTools)

	for i, c := range counts {
		start := since.Add(time.Duration(i) * rg.bucket)
		row := bucketRow{Label: start.Format("2006-01-02 15:04") + " – " + start.Add(rg.bucket).Format("15:04"), Counts: c}
		for _, x := range c {
			row.Total += x
		}
		v.Buckets = append(v.Buckets, row)
	}
	v.Chart = buildChart(counts, since, rg)
	h.render(w, r, http.StatusOK, "overview", h.page(p, "Overview", "overview", v))
}

// chart is a stacked bar chart laid out for an SVG viewBox, so that the
// template only draws what is computed here and the browser scales it to
// any width.
type chart struct {
	Width, Height float64
	Left, Top     float64 // plot origin
	PlotW, PlotH  float64
	Bars          []chartBar
	YTicks        []chartTick
	XTicks        []chartTick
	Max           int
}

type chartBar struct {
	X, W     float64
	Segments []chartSegment
	Title    string // tooltip: the bucket and its counts
}

type chartSegment struct {
	Y, H  float64
	Class string
}

type chartTick struct {
	X, Y  float64
	Label string
}

func buildChart(counts [][]int, since time.Time, rg overviewRange) chart {
	c := chart{Width: 720, Height: 240, Left: 44, Top: 12}
	c.PlotW = c.Width - c.Left - 8
	c.PlotH = c.Height - c.Top - 28
	maxTotal := 0
	for _, b := range counts {
		t := 0
		for _, x := range b {
			t += x
		}
		maxTotal = max(maxTotal, t)
	}
	step := niceStep(maxTotal)
	top := step * int(math.Ceil(float64(max(maxTotal, 1))/float64(step)))
	c.Max = top
	for v := 0; v <= top; v += step {
		c.YTicks = append(c.YTicks, chartTick{X: c.Left - 6, Y: c.Top + c.PlotH - float64(v)/float64(top)*c.PlotH, Label: fmt.Sprint(v)})
	}
	n := len(counts)
	slot := c.PlotW / float64(n)
	gap := math.Min(slot*0.2, 4)
	for i, b := range counts {
		bar := chartBar{X: c.Left + float64(i)*slot + gap/2, W: slot - gap}
		start := since.Add(time.Duration(i) * rg.bucket)
		bar.Title = start.Format("Jan 02 15:04") + "–" + start.Add(rg.bucket).Format("15:04") + " UTC:"
		y := c.Top + c.PlotH
		total := 0
		for ci, x := range b {
			total += x
			if x == 0 {
				continue
			}
			hgt := float64(x) / float64(top) * c.PlotH
			y -= hgt
			bar.Segments = append(bar.Segments, chartSegment{Y: y, H: hgt, Class: classes[ci]})
			bar.Title += fmt.Sprintf(" %d %s,", x, classes[ci])
		}
		if total == 0 {
			bar.Title += " none"
		} else {
			bar.Title = bar.Title[:len(bar.Title)-1]
		}
		c.Bars = append(c.Bars, bar)
		if i%rg.tickEvery == 0 {
			c.XTicks = append(c.XTicks, chartTick{X: bar.X + bar.W/2, Y: c.Top + c.PlotH + 18, Label: start.Format(rg.tickLayout)})
		}
	}
	return c
}

// niceStep picks a y-axis step of 1, 2 or 5 times a power of ten that gives
// about four gridlines.
func niceStep(maxValue int) int {
	if maxValue <= 4 {
		return 1
	}
	raw := float64(maxValue) / 4
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= raw {
			return int(m * pow)
		}
	}
	return int(10 * pow)
}
