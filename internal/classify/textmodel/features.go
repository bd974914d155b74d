package textmodel

import (
	"unicode"
	"unicode/utf8"
)

// Input caps. Whatever lies past them is not read: the model must cost the
// same on a 64 KiB stack trace as on a one-line message, and the first few
// hundred bytes of an error say what it is.
const (
	MaxMessageBytes = 640 // of Input.Message
	MaxTypeBytes    = 96  // of Input.Type
	MaxDetailBytes  = 512 // of all the strings of Input.Details together
	MaxDetailNodes  = 48  // JSON nodes of Input.Details visited
	maxFeatures     = 1024
	maxWordRunes    = 24 // longer words are cut; their n-grams stop there
	maxDetailKeys   = 32 // maps with more keys are not read
)

// Input is what the model reads of a raw error. It mirrors classify.RawError
// without importing it, so that classify can depend on this package.
type Input struct {
	Message string
	Type    string
	// Details is decoded JSON; only its keys and short strings are read.
	Details                      any
	HTTPStatus, GRPCCode         int32
	JSONRPCCode                  int32
	HasHTTP, HasGRPC, HasJSONRPC bool
	HasRetryAfter                bool
	// Hints are what other classifiers concluded (for the baseline: the
	// first generic rule that matched and its reading), as opaque
	// non-zero tokens; zero entries are ignored. The model learns how far
	// to trust each one, and when the text overrules it.
	Hints [2]uint32
}

// Feature seeds keep the kinds of feature apart in the hash space.
const (
	seedWord uint64 = 0x9e3779b97f4a7c15 + iota*0x632be59bd9b4e5
	seedBigram
	seedGram3
	seedGram4
	seedCJK1
	seedCJK2
	seedCJK3
	seedType
	seedKey
	seedStatus
	seedStatusClass
	seedGRPC
	seedJSONRPC
	seedRetryAfter
	seedPresence
	seedHint
	seedConcept
	seedConceptPair
)

// maxConceptFeatures bounds the concepts and pairs of concepts of one
// input: every concept has room, and the pairs of the first dozen.
const maxConceptFeatures = 96

const prime64 = 0x100000001b3

func mix(h uint64, v uint64) uint64 {
	h ^= v
	h *= prime64
	h ^= h >> 29
	return h
}

// features is the fixed-size scratch of one extraction: hashes of every
// feature, in the order they were found. It lives on the caller's stack.
type features struct {
	h [maxFeatures]uint64
	n int
	// hints counts the leading entries of h that are hints: they are
	// weighted 1, not by the text's norm, so that a long message does not
	// drown them.
	hints int
	// fixed counts the leading entries that are hints or concepts: the
	// rest are the text's, weighted by their norm.
	fixed int
	// words counts the letters of the words of text read (not codes,
	// keys or hints) that have two letters or more and no digits, a CJK
	// character counting two: the evidence a prediction rests on.
	words int
	// concepts has the bit of every concept found, and c their hashes in
	// the order found, then those of their pairs; extract puts them after
	// the hints, in the part of h with a fixed weight.
	concepts uint64
	c        [maxConceptFeatures]uint64
	cn       int
}

// conceptWeight is the weight of a concept feature; the hints weigh 1,
// and the text's features together 1. Chosen with grouped
// cross-validation (docs/classification.md, "The text model").
const conceptWeight = 0.5

// weight returns the weight of feature j of f.
func (f *features) weight(j int, norm float64) float64 {
	switch {
	case j < f.hints:
		return 1
	case j < f.fixed:
		return conceptWeight
	}
	return norm
}

func (f *features) add(h uint64) {
	if f.n < maxFeatures-len(f.c) {
		f.h[f.n] = h
		f.n++
	}
}

// extract fills f from in. The text of the message, the type and the
// details' strings is lower-cased and cut into words; every word yields
// itself, its pair with the word before, and its character 3- and 4-grams
// (padded with word boundaries), which carry meaning across inflections,
// compounds and typos. Runs of Chinese, Japanese and Korean characters,
// written without spaces, yield character 1- to 3-grams instead. Variable
// parts are folded before hashing: numbers of five or more digits become
// one token, and a word mixing letters and two or more digits (an ID, a
// hash, a UUID part) becomes another, so the model learns templates, not
// instances.
func extract(in *Input, f *features) {
	f.n, f.words, f.concepts, f.cn = 0, 0, 0, 0
	for _, h := range in.Hints {
		if h != 0 {
			f.add(mix(seedHint, uint64(h)))
		}
	}
	f.hints = f.n
	var t tokenizer
	t.f = f
	t.text(in.Message, MaxMessageBytes, 0)
	t.flush()
	t.text(in.Type, MaxTypeBytes, seedType)
	t.flush()
	budget := MaxDetailBytes
	nodes := MaxDetailNodes
	t.details(in.Details, &budget, &nodes, 0)
	t.flush()
	if in.HasHTTP {
		f.add(mix(seedStatus, uint64(uint32(in.HTTPStatus))))
		f.add(mix(seedStatusClass, uint64(uint32(in.HTTPStatus/100))))
	} else {
		f.add(mix(seedPresence, 1))
	}
	if in.HasGRPC {
		f.add(mix(seedGRPC, uint64(uint32(in.GRPCCode))))
	}
	if in.HasJSONRPC {
		f.add(mix(seedJSONRPC, uint64(uint32(in.JSONRPCCode))))
	}
	if in.HasRetryAfter {
		f.add(seedRetryAfter)
	}
	// Pairs of concepts say what one alone cannot: "quota" with
	// "billing" is a plan to upgrade, with "rate" a window to wait for.
	n := f.cn
	for i := 0; i < n && f.cn < len(f.c); i++ {
		for j := i + 1; j < n && f.cn < len(f.c); j++ {
			f.c[f.cn] = mix(mix(seedConceptPair, f.c[i]), f.c[j])
			f.cn++
		}
	}
	// The concepts go after the hints, with a fixed weight of their own:
	// a long text must not drown them, nor must they drown the hints.
	// Room for them was kept (see add).
	if f.cn > 0 {
		copy(f.h[f.hints+f.cn:f.n+f.cn], f.h[f.hints:f.n])
		copy(f.h[f.hints:], f.c[:f.cn])
		f.n += f.cn
	}
	f.fixed = f.hints + f.cn
}

// tokenizer turns text into features, one rune at a time, without
// allocating.
type tokenizer struct {
	f *features
	// The current word: its runes (cut at maxWordRunes), its length in
	// runes, and what it is made of.
	word            [maxWordRunes]rune
	wlen            int
	digits, letters int
	digitRuns       int
	lastWasDigit    bool
	prevWord        uint64 // hash of the word before, 0 at a text start
	ns              uint64 // namespace: 0 for prose, seedType for the type
	// The current CJK run: the last three runes.
	cjk  [3]rune
	cjkN int
	// The concept matcher's state, and whether the last byte fed to it
	// was a space.
	cs    int32
	space bool
}

// feed gives the concept matcher the bytes of r as the text normalizes:
// letters in lower case, any run of other characters one space.
func (t *tokenizer) feed(r rune) {
	if r == ' ' {
		if t.space {
			return
		}
		t.space = true
		t.feedByte(' ')
		return
	}
	t.space = false
	if r < utf8.RuneSelf {
		t.feedByte(byte(r))
		return
	}
	var b [utf8.UTFMax]byte
	for _, c := range b[:utf8.EncodeRune(b[:], r)] {
		t.feedByte(c)
	}
}

func (t *tokenizer) feedByte(c byte) {
	t.cs = conceptMatcher.Next(t.cs, c)
	if !conceptMatcher.Ends(t.cs) {
		return
	}
	conceptMatcher.Hits(t.cs, func(id int32, _ int) bool {
		if bit := uint64(1) << id; t.f.concepts&bit == 0 {
			t.f.concepts |= bit
			t.f.c[t.f.cn] = mix(seedConcept, uint64(id))
			t.f.cn++
		}
		return true
	})
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func (t *tokenizer) text(s string, limit int, ns uint64) {
	t.ns = ns
	t.prevWord = 0
	if len(s) > limit {
		s = s[:limit]
	}
	t.cs, t.space = conceptMatcher.Start(), false
	t.feed(' ')
	defer t.feed(' ')
	for i := 0; i < len(s) && t.f.n < maxFeatures; {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		switch {
		case r < utf8.RuneSelf:
			switch {
			case 'a' <= r && r <= 'z':
				t.letter(r)
				t.feed(r)
			case 'A' <= r && r <= 'Z':
				t.letter(r + 'a' - 'A')
				t.feed(r + 'a' - 'A')
			case '0' <= r && r <= '9':
				t.digit(r)
				t.feed(r)
			default:
				t.boundary()
				t.feed(' ')
			}
		case isCJK(r):
			t.endWord()
			t.cjkRune(r)
			t.feed(r)
		case unicode.IsLetter(r) || unicode.IsMark(r):
			r = unicode.ToLower(r)
			t.letter(r)
			t.feed(r)
		case unicode.IsDigit(r):
			t.digit(r)
			t.feed(r)
		default:
			t.boundary()
			t.feed(' ')
		}
	}
}

func (t *tokenizer) letter(r rune) {
	t.endCJK()
	if t.wlen < maxWordRunes {
		t.word[t.wlen] = r
	}
	t.wlen++
	t.letters++
	t.lastWasDigit = false
}

func (t *tokenizer) digit(r rune) {
	t.endCJK()
	if t.wlen < maxWordRunes {
		t.word[t.wlen] = r
	}
	t.wlen++
	t.digits++
	if !t.lastWasDigit {
		t.digitRuns++
	}
	t.lastWasDigit = true
}

func (t *tokenizer) boundary() {
	t.endWord()
	t.endCJK()
}

func (t *tokenizer) flush() { t.boundary() }

// Placeholder words for folded variable parts.
const (
	wordLongNumber = 1 + iota
	wordIdentifier
)

func (t *tokenizer) endWord() {
	if t.wlen == 0 {
		return
	}
	n := min(t.wlen, maxWordRunes)
	var wh uint64
	switch {
	case t.letters == 0 && t.digits >= 5:
		wh = mix(seedWord^t.ns, wordLongNumber)
	case t.letters > 0 && t.digits >= 2 && t.wlen >= 6:
		wh = mix(seedWord^t.ns, wordIdentifier)
	default:
		wh = seedWord ^ t.ns
		for _, r := range t.word[:n] {
			wh = mix(wh, uint64(r))
		}
		if t.letters > 0 {
			t.grams(n)
		}
	}
	t.f.add(wh)
	if t.ns == 0 && t.letters >= 2 && t.digits == 0 {
		t.f.words += t.letters
	}
	if t.prevWord != 0 {
		t.f.add(mix(mix(seedBigram^t.ns, t.prevWord), wh))
	}
	t.prevWord = wh
	t.wlen, t.digits, t.letters, t.digitRuns, t.lastWasDigit = 0, 0, 0, 0, false
}

// grams adds the character 3- and 4-grams of the current word, with a
// boundary marker (0) at both ends: "<ti", "tim", …, "ut>".
func (t *tokenizer) grams(n int) {
	at := func(i int) rune {
		if i < 0 || i >= n {
			return 0
		}
		return t.word[i]
	}
	for i := -1; i+2 <= n; i++ {
		a, b, c := at(i), at(i+1), at(i+2)
		t.f.add(mix(mix(mix(seedGram3^t.ns, uint64(a)), uint64(b)), uint64(c)))
		if i+3 <= n {
			t.f.add(mix(mix(mix(mix(seedGram4^t.ns, uint64(a)), uint64(b)), uint64(c)), uint64(at(i+3))))
		}
	}
}

func (t *tokenizer) cjkRune(r rune) {
	t.cjk[0], t.cjk[1], t.cjk[2] = t.cjk[1], t.cjk[2], r
	t.cjkN++
	if t.ns == 0 {
		t.f.words += 2
	}
	t.f.add(mix(seedCJK1, uint64(r)))
	if t.cjkN >= 2 {
		t.f.add(mix(mix(seedCJK2, uint64(t.cjk[1])), uint64(r)))
	}
	if t.cjkN >= 3 {
		t.f.add(mix(mix(mix(seedCJK3, uint64(t.cjk[0])), uint64(t.cjk[1])), uint64(r)))
	}
}

func (t *tokenizer) endCJK() {
	t.cjkN = 0
	t.prevWord = 0
}

// details reads the keys and strings of a decoded JSON value, depth first,
// within the byte and node budgets. Keys are words of their own namespace
// ("reason_code", "errcode"); string values are prose.
func (t *tokenizer) details(v any, budget, nodes *int, depth int) {
	if *nodes <= 0 || *budget <= 0 || depth > 6 {
		return
	}
	*nodes--
	switch x := v.(type) {
	case string:
		n := min(len(x), *budget)
		t.text(x, n, 0)
		t.flush()
		*budget -= n
	case map[string]any:
		// Keys in sorted order, found by repeated scans instead of a
		// sorted copy: no allocation, and the same features whatever
		// order the map iterates in (the budgets cut the same strings).
		// Bodies with more keys than that are not read for their keys.
		if len(x) > maxDetailKeys {
			return
		}
		prev, started := "", false
		for {
			k, found := "", false
			for key := range x {
				if (!started || key > prev) && (!found || key < k) {
					k, found = key, true
				}
			}
			if !found || *nodes <= 0 || *budget <= 0 {
				return
			}
			prev, started = k, true
			n := min(len(k), *budget)
			t.text(k, n, seedKey)
			t.flush()
			*budget -= n
			t.details(x[k], budget, nodes, depth+1)
		}
	case []any:
		for _, e := range x {
			if *nodes <= 0 || *budget <= 0 {
				return
			}
			t.details(e, budget, nodes, depth+1)
		}
	}
}
