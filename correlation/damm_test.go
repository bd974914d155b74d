package correlation

import "testing"

// TestQuasigroupIsTotallyAntiSymmetric proves, over the whole table, the
// two properties the check character relies on: the operation is a
// quasigroup (every row and every column is a permutation, so a single
// wrong symbol always changes the interim value), and it is totally
// anti-symmetric (so a swap of two different neighbours always does).
func TestQuasigroupIsTotallyAntiSymmetric(t *testing.T) {
	t.Parallel()
	for x := range byte(32) {
		var row, col [32]bool
		for y := range byte(32) {
			r, c := quasigroup(x, y), quasigroup(y, x)
			if r >= 32 || c >= 32 {
				t.Fatalf("quasigroup(%d, %d) leaves the alphabet", x, y)
			}
			if row[r] || col[c] {
				t.Fatalf("row or column %d repeats a value: not a Latin square", x)
			}
			row[r], col[c] = true, true
		}
	}
	for c := range byte(32) {
		for x := range byte(32) {
			for y := range byte(32) {
				if x == y {
					continue
				}
				if quasigroup(quasigroup(c, x), y) == quasigroup(quasigroup(c, y), x) {
					t.Fatalf("(%d∗%d)∗%d = (%d∗%d)∗%d: not totally anti-symmetric", c, x, y, c, y, x)
				}
			}
		}
	}
	for x := range byte(32) {
		for y := range byte(32) {
			if x != y && quasigroup(x, y) == quasigroup(y, x) {
				t.Fatalf("%d∗%d = %d∗%d: not weakly anti-symmetric", x, y, y, x)
			}
		}
	}
	// The final step: the check symbol is the unique value that brings each
	// interim value back to 0.
	for s := range byte(32) {
		n := 0
		for c := range byte(32) {
			if quasigroup(s, c) == 0 {
				n++
				if c != gfDouble(s) {
					t.Fatalf("interim %d: check %d, want %d", s, gfDouble(s), c)
				}
			}
		}
		if n != 1 {
			t.Fatalf("interim %d: %d check symbols close it, want 1", s, n)
		}
	}
}
