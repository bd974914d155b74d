package classify

import (
	"regexp"
	"strings"

	"github.com/omcp/toolfailure/internal/literal"
)

// A page from a web application firewall, a bot manager or a virus
// scanner (docs/classification.md, "Firewalls, bot walls and virus
// scanners") answers for the site, whatever status code it comes with:
// Cloudflare and ModSecurity block with 403, Huawei's WAF with 418, Kasada
// challenges with 429, Imunify360 with 415 or 500. Read by its status, such
// a page looks like a permission failure, a rate limit or an outage, and
// the agent retries or asks for access that nobody can grant.
//
//   - A block (the site's rules refused the request) and a virus verdict
//     are governance / policy_blocked: retrying or rephrasing to get around
//     them is what the agent must not do.
//   - A challenge (a CAPTCHA, a browser check, a proof of work) is
//     governance / user_action_required: only a person in a browser can
//     pass it, and waiting does not help.
//   - A scan that has not finished yet is transient.
//
// The evidence is a product's own signature (a header it sets, its page's
// wording) or the generic wording of such pages, never a site's name.

// challengeText finds a bot check in a message or a page.
var challengeText = regexp.MustCompile(`(?i)(just a moment\.\.\.|checking (if the site connection is secure|your browser before)|verify(ing)? (that )?you are (a )?human|are you a robot|not a robot|(confirm|making sure) (that )?you('|’)?re not a bot|prove you('|’)?re (a )?human|complete the (security )?check to access|enable (javascript|js) and (disable|cookies)|please enable (javascript|js) and|_cf_chl_opt|challenge-platform|cf-chl-|px-captcha|captcha-delivery\.com|datadome|ips\.js\?kp_|anubis_challenge|your request is being verified|unusual traffic from your computer network|ddos-guard|проверка браузера|人机验证|ロボットではありません|geen robot bent|kein roboter|pas un robot|no (eres|soy) un robot|não (é|és|sou) um robô|non (sei|sono) un robot|nie (jestem|jesteś) robotem|captcha)`)

// blockText finds a firewall's block page or a virus verdict.
var blockText = regexp.MustCompile(`(?i)(used cloudflare to restrict access|sorry, you have been blocked|cf-error-details|attention required! \| cloudflare|incapsula incident id|request unsuccessful\. incapsula|the requested url was rejected\. please consult with your administrator|modsecurity|mod_security|naxsi: request denied|bloquead[ao] pelo waf|bị chặn bởi[^.\n]{0,60}(tường lửa|waf)|zablokowane przez zapor[ęa]|error( code)?:? 1020\b|sucuri website firewall|wordfence|access to this site has been limited by the site owner|imunify360|barracuda web application firewall|fortiweb|fortiguard|web page blocked|attack id: |web application firewall|blocked by (the |our )?(waf|firewall|security (policy|service|rules))|request (was |has been )?blocked by (the |our )?(waf|firewall|security)|request blocked\. we can('|’)?t connect to the server|reference #[0-9a-f]+\.[0-9a-f]+\.[0-9a-f]+|on this server\. reference #[0-9]+\.|current session has been terminated|access control configuration prevents your request|no hacking|网站防火墙|חומת (ה)?אש|τείχος προστασίας|已被[^。！!]{0,12}(拦截|屏蔽|阻止)|安全拦截|(请求|访问)(已)?被(拦截|阻止|屏蔽)|拦截提示|被[^。]{0,12}安全规则(阻止|拦截)|疑似攻击|アプリケーションファイアウォール|(防火墙|防火牆|ファイアウォール|방화벽)[^。\n]{0,40}(拦截|攔截|阻止|阻擋|遮断|ブロック|차단)|(拦截|攔截|遮断|차단)[^。\n]{0,40}(防火墙|防火牆|ファイアウォール|방화벽)|заблокирован[а-я]* систем[а-я]* защиты|bloquead[ao] por (el|la) (waf|firewall|cortafuegos)|bloquée par (le|la) (waf|pare-feu)|(vom|von der|durch die) (waf|firewall) blockiert|aus sicherheitsgründen blockiert|(virus|malware|trojan|threat)s? (is |was |were |has been )?(detected|found)|(contains?|containing|to contain) (a |an )?(virus|malware|trojan)|(包含|含有)[^。]{0,6}病毒|(access denied|request blocked)[^\n]{0,60}incident id|code de blocage|(blocked|prevented|stopped)[^\n]{0,40}(server-side request forgery|sql injection|path traversal|shell injection|command injection|cross-site scripting)|(server-side request forgery|sql injection|path traversal|shell injection|command injection|cross-site scripting)[^\n]{0,40}(blocked|prevented|stopped)|(заблокирован[а-я]*[^.\n]{0,30}(файрвол|фаервол|брандмауэр))|((файрвол|фаервол|брандмауэр)[^.\n]{0,40}заблокир)|不正な(通信|アクセス)[^。\n]{0,30}(遮断|ブロック)|infected (with|file)|eicar|flagged by google safe browsing|threats_found|вирус[^.]{0,60}обнаружен|обнаружен[^.]{0,40}вирус|ウイルス[^。]{0,40}(検出|見つかり)|(检测到|发现)[^。]{0,20}病毒|病毒[^。]{0,20}(检测|发现))`)

// Go's regexp has no DFA: a case-insensitive alternation of this size,
// run over every long message, would cost more than the rest of a
// classification. Each pattern therefore runs only on a text that holds
// one of its literals (lower case; every alternative of the pattern
// contains one of them), found by one scan of the text lowered once.
var (
	challengeWords = words("just a moment", "checking ", "human", "robot", "not a bot", "re not a bot",
		"complete the", "javascript", "enable js", "_cf_chl", "challenge-platform", "cf-chl-", "captcha",
		"datadome", "kp_", "anubis_challenge", "being verified", "unusual traffic", "ddos-guard",
		"проверка браузера", "人机验证", "ロボットではありません", "robô")
	blockWords = words("cloudflare", "have been blocked", "cf-error-details", "incapsula",
		"the requested url was rejected", "modsecurity", "mod_security", "naxsi: request denied", "pelo waf", "bị chặn bởi", "przez zapor", "error 1020", "error: 1020", "error code 1020", "error code: 1020", "sucuri website firewall",
		"wordfence", "limited by the site owner", "imunify360", "barracuda", "fortiweb", "fortiguard",
		"web page blocked", "attack id: ", "firewall", "blocked by", "request blocked", "reference #",
		"session has been terminated", "access control configuration", "no hacking", "网站防火墙", "חומת אש", "חומת האש", "τείχος προστασίας",
		"已被", "安全拦截", "被拦截", "被阻止", "被屏蔽", "拦截提示", "安全规则", "疑似攻击", "アプリケーションファイアウォール",
		"防火墙", "防火牆", "ファイアウォール", "방화벽", "заблокирован", "bloquead", "bloquée par", "blockiert", "virus",
		"malware", "trojan", "threat", "infected", "eicar", "safe browsing", "вирус", "обнаружен", "ウイルス", "病毒",
		"incident id", "code de blocage", "файрвол", "фаервол", "брандмауэр", "不正な", "request forgery", "sql injection", "path traversal", "shell injection",
		"command injection", "cross-site scripting")
	scanWords = words("scan")
)

// words is a matcher of literals compared as they are.
func words(ws ...string) *literal.Matcher {
	var b literal.Builder
	for i, w := range ws {
		b.Add(w, int32(i))
	}
	return b.Build(literal.Exact)
}

// scanPendingText finds a scan that has not finished yet.
var scanPendingText = regexp.MustCompile(`(?i)(scan (result )?(is )?(not (finished|complete|completed|available)( yet)?|in progress|pending|still running)|scanning in progress)`)

// blockHeaders and challengeHeaders are response headers (lower case) that
// a firewall or bot manager sets on its own answers.
var (
	blockHeaders     = []string{"x-sucuri-block", "x-amzn-waf-action=block", "server=huaweicloudwaf", "x-iinfo", "server=sucuri/cloudproxy", "x-tencent-waf", "x-safe-firewall"}
	challengeHeaders = []string{"cf-mitigated=challenge", "x-amzn-waf-action=captcha", "x-amzn-waf-action=challenge", "x-datadome", "x-kpsdk-ct", "x-kpsdk-r", "x-dd-b"}
)

// firewallClip is how much of each text the firewall rule reads: a block
// page or a verdict says what it is near its start, and a long log
// excerpt should not pay for a search to its end.
const firewallClip = 2048

func clipFirewall(s string) string {
	if len(s) > firewallClip {
		return s[:firewallClip]
	}
	return s
}

// ruleFirewall reports a firewall's block, a bot challenge, a virus
// verdict or a scan still running.
func ruleFirewall(s *signals) (kind, bool) {
	e := &s.in.Error
	var texts []string
	texts = append(texts, clipFirewall(e.Message))
	var headers map[string]any
	switch d := e.Details.(type) {
	case string:
		texts = append(texts, clipFirewall(d))
	case map[string]any:
		for _, key := range []string{"body", "html", "content", "message", "error", "text"} {
			if t, ok := stringField(d, key); ok {
				texts = append(texts, clipFirewall(t))
			}
		}
		for _, key := range []string{"blockScript", "appId"} {
			if _, ok := d[key]; ok {
				// HUMAN (PerimeterX)'s JSON block response carries its
				// challenge script and application ID.
				texts = append(texts, "captcha")
			}
		}
		headers = mapField(d, "headers")
		if headers == nil {
			headers = mapField(mapField(d, "response"), "headers")
		}
	}
	for name, v := range headers {
		n := strings.ToLower(name)
		val, _ := v.(string)
		pair := n + "=" + strings.ToLower(val)
		for _, h := range challengeHeaders {
			if n == h || pair == h {
				return kChallenge, true
			}
		}
		for _, h := range blockHeaders {
			if n == h || pair == h {
				return kPolicy, true
			}
		}
	}
	lower := make([]string, len(texts))
	for i, t := range texts {
		lower[i] = strings.ToLower(t)
	}
	for i, t := range texts {
		if scanWords.Contains(lower[i]) && scanPendingText.MatchString(t) {
			return kUnavailable, true
		}
	}
	for i, t := range texts {
		if challengeWords.Contains(lower[i]) && challengeText.MatchString(t) {
			return kChallenge, true
		}
	}
	for i, t := range texts {
		if blockWords.Contains(lower[i]) && blockText.MatchString(t) {
			return kPolicy, true
		}
	}
	return kNone, false
}
