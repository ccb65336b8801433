package experiment

import (
	"strings"
	"testing"

	"github.com/parloop/parloop/par/internal/topology"
)

// Catches: a setting that sets no field, or the wrong one, or a setting of
// the table this test does not know (add it here).
func TestEverySettingSetsItsField(t *testing.T) {
	want := map[string]Set{
		"victims=nearest":  {Victims: topology.VictimsNearest},
		"victims=random":   {Victims: topology.VictimsRandom},
		"backoff=off":      {NoBackoff: true},
		"threads=locked":   {Locked: true},
		"spinners=all":     {AllSpin: true},
		"kicks=off":        {NoKick: true},
		"cuts=off":         {NoCut: true},
		"fewitems=off":     {NoFewItems: true},
		"plainnested=off":  {NoPlainNested: true},
		"crowds=off":       {NoCrowd: true},
		"saturation=off":   {NoSaturation: true},
		"spawngrow=off":    {NoSpawnGrow: true},
		"ratecut=off":      {NoRateCut: true},
		"slowstart=off":    {NoSlowStart: true},
		"idlecheck=off":    {NoIdleCheck: true},
		"backoff=on":       {},
		"threads=unlocked": {},
		"spinners=half":    {},
		"kicks=on":         {},
	}
	for name := range settings {
		if _, ok := want[name]; !ok {
			t.Errorf("setting %q is not tested", name)
		}
	}
	for name, w := range want {
		got, err := Parse(name)
		if err != nil {
			t.Errorf("Parse(%q): %v", name, err)
			continue
		}
		if got != w {
			t.Errorf("Parse(%q) = %+v, want %+v", name, got, w)
		}
	}
}

// Catches: a list that keeps only its last setting, or that trips on
// spaces, empty entries or "default".
func TestParseList(t *testing.T) {
	for _, s := range []string{"", "default", " , ,default", ","} {
		if got, err := Parse(s); err != nil || got != (Set{}) {
			t.Errorf("Parse(%q) = %+v, %v; want the defaults", s, got, err)
		}
	}
	got, err := Parse(" victims=random, cuts=off ,,default,saturation=off")
	want := Set{Victims: topology.VictimsRandom, NoCut: true, NoSaturation: true}
	if err != nil || got != want {
		t.Errorf("Parse of a list = %+v, %v; want %+v", got, err, want)
	}
	// A later setting of the same field wins.
	if got, _ := Parse("victims=random,victims=nearest"); got.Victims != topology.VictimsNearest {
		t.Errorf("victims=random,victims=nearest gives %v", got.Victims)
	}
}

// Catches: a typo that passes for a measurement of the defaults.
func TestParseUnknown(t *testing.T) {
	for _, s := range []string{"cuts=of", "kicks=off,crowd=off", "victims", "spinforever=on", "Cuts=off"} {
		_, err := Parse(s)
		if err == nil {
			t.Errorf("Parse(%q): no error", s)
			continue
		}
		if !strings.Contains(err.Error(), "PARLOOP_EXPERIMENT") {
			t.Errorf("Parse(%q): error %q does not name PARLOOP_EXPERIMENT", s, err)
		}
	}
}
