package textmodel

import "testing"

// conceptsOf returns the concepts extract finds in msg.
func conceptsOf(msg string) uint64 {
	var f features
	extract(&Input{Message: msg}, &f)
	return f.concepts
}

func TestConceptsAcrossLanguages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		msg  string
		want concept
	}{
		{"Permission denied", conceptDeny},
		{"Zugriff verweigert", conceptDeny},
		{"Доступ запрещён для этого пользователя", conceptDeny},
		{"权限不足", conceptDeny},
		{"접근 권한이 없습니다", conceptDeny},
		{"The request timed out", conceptTimeout},
		{"连接超时，请稍后重试", conceptTimeout},
		{"接続がタイムアウトしました", conceptTimeout},
		{"Zeitüberschreitung beim Verbinden", conceptTimeout},
		{"Token expired", conceptExpired},
		{"La sesión ha caducado", conceptExpired},
		{"APPKEY为空或不存在", conceptNotFound},
		{"n'existe pas", conceptNotFound},
		{"Servicio no disponible temporalmente", conceptUnavailable},
		{"PermissionDeniedException", conceptDeny},
		{"too_many_requests", conceptRate},
		{"Bitte richten Sie zuerst ein Bankkonto ein", conceptSetup},
		{"请先绑定手机号", conceptSetup},
		{"Veuillez contacter votre administrateur", conceptContact},
		{"관리자에게 문의하세요", conceptContact},
		{"Das Gerät antwortet nicht (zuletzt gesehen 10:02)", conceptSilent},
		{"Palvelin on ruuhkautunut", conceptBusy},
		{"Mae'r gwasanaeth ddim ar gael dros dro", conceptUnavailable},
		{"Probéiert w.e.g. spéider nach eng Kéier", conceptRetryLater},
		{"Aikakatkaisu: palvelin ei vastannut", conceptTimeout},
	} {
		if got := conceptsOf(c.msg); got&(1<<c.want) == 0 {
			t.Errorf("%q: concepts %b, want the bit of concept %d", c.msg, got, c.want)
		}
	}
	// A stem matches at a word's start only: "negative" is not Italian
	// "negato", and "uploading" holds no "login".
	for _, msg := range []string{"the value must not be negative", "uploading file"} {
		if got := conceptsOf(msg); got&(1<<conceptDeny|1<<conceptAuth) != 0 {
			t.Errorf("%q: concepts %b, want neither deny nor auth", msg, got)
		}
	}
}

func TestConceptNeedles(t *testing.T) {
	t.Parallel()
	for w, want := range map[string]string{
		"n'existe pas":   " n existe pas",
		"Tiempo agotado": " tiempo agotado",
		"权限":             "权限",
		"al ":            " al ",
	} {
		if got := conceptNeedle(w); got != want {
			t.Errorf("conceptNeedle(%q) = %q, want %q", w, got, want)
		}
	}
	for c := concept(1); c < conceptCount; c++ {
		if len(conceptWords[c]) == 0 {
			t.Errorf("concept %d has no words", c)
		}
	}
	if len(conceptWords) != int(conceptCount)-1 {
		t.Errorf("%d concepts have words, want %d", len(conceptWords), conceptCount-1)
	}
}

// The features of the concepts stay within the scratch: a text that fills
// it leaves room for every concept.
func TestConceptsFitAFullText(t *testing.T) {
	t.Parallel()
	msg := ""
	for len(msg) < MaxMessageBytes {
		msg += "permission timeout expired quota payment busy "
	}
	var f features
	extract(&Input{Message: msg, Type: "TimeoutError"}, &f)
	if f.n > maxFeatures || f.fixed-f.hints != f.cn || f.cn == 0 {
		t.Fatalf("n %d fixed %d hints %d concepts %d", f.n, f.fixed, f.hints, f.cn)
	}
}
