package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/cronjob-operator/cronjob-operator/bench/internal/results"
)

// Chart geometry: panels side by side, up to chartColumns a row, each row chartRowHeight high.
const (
	chartColumns   = 4
	chartWidth     = 12 * vg.Inch
	chartRowHeight = 4 * vg.Inch
	chartDPI       = 120
	// maxCDFPoints bounds the points of one curve; longer ones keep every k-th skew (a step of at most
	// 1/maxCDFPoints on the y axis).
	maxCDFPoints = 2000
	// minSkewMs is where the log axis starts; smaller skews (and negative ones) are drawn there.
	minSkewMs = 1.0
	// legendHeadroom is the empty band above a fraction of 1 that holds the legend clear of the curves.
	legendHeadroom = 0.2
)

// curveStyle is how one controller's curve is drawn.
type curveStyle struct {
	controller results.Controller
	color      color.Color
	dashes     []vg.Length
}

var curveStyles = []curveStyle{
	{results.Ours, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, nil},
	{results.Peer, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, []vg.Length{vg.Points(6), vg.Points(3)}},
}

// renderChart draws the skew distributions of run as a PNG at path: one panel per scenario with any Job
// observed, each the empirical CDF of the skew of ours and of the peer (x: skew in ms on a log scale, skews
// under 1 ms drawn at 1 ms; y: fraction of runs). Panels sit side by side, 12 inches wide, up to four a
// row of 4 inches; a run without skews gives one empty panel saying so.
func renderChart(run *results.Run, path string) error {
	var panels []*plot.Plot
	for _, s := range run.Scenarios {
		p, ok, err := skewPanel(s)
		if err != nil {
			return fmt.Errorf("rendering chart: scenario %s: %w", s.Name, err)
		}
		if ok {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		p := plot.New()
		p.Title.Text = "no Job observed in any scenario"
		p.HideAxes()
		panels = append(panels, p)
	}
	if err := savePanels(panels, path); err != nil {
		return fmt.Errorf("rendering chart: %w", err)
	}
	return nil
}

// skewPanel returns the CDF panel of s, or false when no controller observed a Job in s.
func skewPanel(s results.Scenario) (*plot.Plot, bool, error) {
	p := plot.New()
	p.Title.Text = s.Name
	p.X.Label.Text = "skew (ms, log; <1 ms shown as 1)"
	p.Y.Label.Text = "fraction of runs"
	// Smaller than the default 12 pt, so that the x label fits a quarter of the chart.
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(10), vg.Points(10)
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = vg.Points(9), vg.Points(9)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(4)
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Add(plotter.NewGrid())
	observed := false
	for _, cs := range curveStyles {
		skews := aggregateResults(s, cs.controller).skews
		if len(skews) == 0 {
			p.Legend.Add(fmt.Sprintf("%s: no Job observed", cs.controller))
			continue
		}
		observed = true
		line, err := plotter.NewLine(cdfPoints(skews))
		if err != nil {
			return nil, false, err
		}
		line.StepStyle = plotter.PostStep
		line.Color = cs.color
		line.Width = vg.Points(1.5)
		line.Dashes = cs.dashes
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (%d Jobs)", cs.controller, len(skews)), line)
	}
	if !observed {
		return nil, false, nil
	}
	// The x values are log10(ms) on a linear axis rather than ms on a plot.LogScale axis: with a log scale,
	// plot.Align reserves room for the axis label as if centred on the arithmetic mean of the range, which
	// squeezes each panel to about half its width.
	p.X.Tick.Marker = plot.TickerFunc(log10Ticks)
	p.X.Min = math.Log10(minSkewMs)
	p.X.Max = max(p.X.Max, p.X.Min+1) // at least one decade
	p.Y.Min, p.Y.Max = 0, 1+legendHeadroom
	p.Y.Tick.Marker = plot.ConstantTicks{
		{Value: 0, Label: "0"}, {Value: 0.25}, {Value: 0.5, Label: "0.5"}, {Value: 0.75}, {Value: 1, Label: "1"},
	}
	return p, true, nil
}

// log10Ticks are the plot.LogTicks of [10^lo, 10^hi] placed at their log10, labelled 1, 10, 100, 1k, 10k,
// ... so that the labels of five decades fit under a quarter of the chart.
func log10Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(math.Pow(10, lo), math.Pow(10, hi)) {
		x := math.Log10(t.Value)
		if x < lo-1e-9 || x > hi+1e-9 {
			continue
		}
		switch {
		case t.Label == "":
		case t.Value >= 1e6:
			t.Label = strconv.FormatFloat(t.Value/1e6, 'f', -1, 64) + "M"
		case t.Value >= 1e3:
			t.Label = strconv.FormatFloat(t.Value/1e3, 'f', -1, 64) + "k"
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: t.Label})
	}
	return ticks
}

// cdfPoints returns the empirical CDF of skews (not empty) as points for a PostStep line: x the log10 of the
// skew in ms (at least minSkewMs), y the fraction of skews at or below it.
func cdfPoints(skews []time.Duration) plotter.XYs {
	s := slices.Clone(skews)
	slices.Sort(s)
	n := len(s)
	stride := max(1, n/maxCDFPoints)
	xs := func(i int) float64 { return math.Log10(max(milliseconds(s[i]), minSkewMs)) }
	pts := plotter.XYs{{X: xs(0), Y: 0}}
	for i := 0; i < n; i += stride {
		pts = append(pts, plotter.XY{X: xs(i), Y: float64(i+1) / float64(n)})
	}
	if (n-1)%stride != 0 {
		pts = append(pts, plotter.XY{X: xs(n - 1), Y: 1})
	}
	return pts
}

// savePanels draws panels in a grid of up to chartColumns columns, aligned on their data areas, and writes
// the PNG to path.
func savePanels(panels []*plot.Plot, path string) error {
	cols := min(len(panels), chartColumns)
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(panels) {
				grid[r][c] = panels[i]
			}
		}
	}
	img := vgimg.NewWith(vgimg.UseWH(chartWidth, vg.Length(rows)*chartRowHeight), vgimg.UseDPI(chartDPI))
	tiles := draw.Tiles{
		Rows: rows, Cols: cols,
		PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12),
	}
	canvases := plot.Align(grid, tiles, draw.New(img))
	for r := range grid {
		for c, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
