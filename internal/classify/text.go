package classify

import (
	"regexp"
	"slices"

	"github.com/omcp/toolfailure/internal/literal"
)

// Phrase sets for message heuristics. Phrases are matched against
// signals.text, which is lower case with every non-alphanumeric run turned
// into one space, so " rate limit" matches "Rate-limit", "rate_limit" and
// "RateLimit". A leading space anchors a phrase at a word start; a trailing
// space, where present, at a word end.
//
// The sets are tried in the order of textOrder: the more specific and the
// more consequential a reading, the earlier. "Approval required" must be
// read as a human step before "required" reads as a missing argument, and
// "host not found" as a DNS failure before "not found" reads as a missing
// resource.

type textSet uint8

const (
	tConfirm textSet = iota
	tSetup
	tBilling
	tQuotaCount
	tStorage
	tRate
	tOverloaded
	tContention
	tAuth
	tPolicy
	tUnsupportedStrong
	tPermission
	tAuthWeak
	tDNS
	tRefused
	tTimeout
	tNetwork
	tBadResponse
	tTooLarge
	tUnsupported
	tNotFound
	tExists
	tInvalid
	tUnavailable
	tServer
	tBlocked
	tDenied
	tCrashed
	tQuotaPerson
	setCount
)

type phraseSet struct {
	kind    kind
	phrases []string
	// patterns catch phrasings with a variable word in them ("no node
	// found"); they run on the same normalized text.
	patterns []*regexp.Regexp
	// unless vetoes the set: "blocked by the user" is not a policy block.
	unless []string
}

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// undeclaredName is a compiler's word for a name the source uses and
// nothing declares: the source (the call's input) is wrong, not a
// resource missing. tInvalid reads it; tNotFound, tried first, stands aside.
var undeclaredName = []string{" cannot find name", " unknown identifier", " undeclared identifier", " identifier not found"}

var textSets = [setCount]phraseSet{
	tConfirm: {kind: kConfirm, phrases: []string{
		" awaiting confirmation", " requires confirmation", " confirmation required",
		" confirmation is required", " needs confirmation", " need confirmation",
		" requires approval", " approval required", " approval is required", " needs approval",
		" need approval", " pending approval", " approvals are still pending", " approval is still pending",
		" approvals are pending", " approval is pending", " awaiting approval", " must be approved",
		" must be confirmed", " please confirm", " explicit confirmation", " explicitly confirm",
		" user confirmation", " human approval", " consent required", " consent is required",
		" requires consent", " interaction required", " requires user interaction",
		" user action required", " action required", " needs to be approved", " not yet approved",
		" waiting for approval", " requires explicit", " to be confirmed", " requires human",
		// A signature someone else owes (a witness, a reviewer).
		" signature pending", " signature is pending", " pending signature", " awaiting signature",
		" human in the loop", " elicitation required", " requires manual approval",
		" approval needed", " awaiting user", " requires the user to confirm", " user must confirm",
		" confirm the action", " confirm that you want", " confirm before", " requires action",
		" waiting for user", " captcha", " human verification",
		// A one-time code that expired: the person asks for a new one.
		" otp has expired", " otp expired", " otp is expired",
		// A question put to the user that went unanswered is theirs to
		// answer, not a timeout to retry.
		" no response from the user", " no response from user", " user did not respond", " user failed to respond",
		" user didn t respond", " user did not answer", " no answer from the user", " no reply from the user",
		" human input request", " for human input", " user input timeout",
		// A sign-in handed to the person's browser that no one finished.
		" no response from browser", " no response from the browser",
	},
		// "The draft is not ready to be confirmed" speaks of the object's
		// state, which the caller's input decides: no person is asked.
		unless: []string{" ready to be confirmed"}},
	tSetup: {kind: kSetup, phrases: []string{
		// A plug-in the host expects and the machine lacks: someone
		// installs it (docs/classification.md, "A person must act").
		" failed to load plugin", " failed to load plug in", " could not load plugin",
		" plugin could not be found", " plug in could not be found", " plugin not installed",
		" plugin is not installed", " plugin not found",
		// A pool of workers or agents, or an engine, that someone has to
		// start first ("is not running. Please start the engine").
		" start at least one", " please start the", " has no agents running", " no agents are running",
		" has not been used in project", " it is disabled", " enable it by visiting",
		" api has not been enabled", " api is not enabled", " service disabled",
		" service is disabled", " is disabled for this project", " not enabled for this project",
		" not been enabled", " paired with another device", " unpair it", " please link your", " please link the", " please link them", " verify your email", " email not verified", " email is not verified",
		" email address is not verified", " accept the terms",
		" terms of service have not been accepted", " account is not activated",
		" account not activated", " account has not been activated", " complete the setup",
		" finish setting up", " setup is required", " setup required", " not been set up",
		" needs to be set up", " must be set up", " is not set up",
		" not configured for this account", " has not been configured", " needs to be configured",
		" must be configured", " no default payment", " verification required",
		" complete the verification", " verify your identity", " verify your account",
		" account is locked", " account locked", " account has been locked", " account is disabled",
		" account has been disabled", " account disabled", " two factor authentication setup",
		" onboarding", " not licensed", " unlicensed", " no valid license", " license has expired",
		" license expired", " licence has expired", " licence expired", " activate your account",
		" account is inactive", " account inactive", " account is not active", " account not active",
		" dormant", " you must install", " please install", " must be installed", " needs to be installed",
		" isn t installed", " is not installed", " license file is required", " valid license file",
		" environment variable is unset", " environment variable is not set", " environment variable not set",
		" environment variable is missing", " is out of date and must be", " enter the passcode", " unlock the device",
		" is installed properly", " is installed correctly", " extension is not available", " extension unavailable",
		" limited license",
		" executable not found", " executable does not exist", " no executable found", " executable was not found",
		" shared library not found", " package is required",
		// A library, module or plugin the machine lacks: someone installs it.
		" error while loading shared libraries", " cannot open shared object file", " dlopen failed", " winerror 126",
		" are not installed", " download and install", " missing dependency", " mods are missing",
		" need to install", " requires a connected", " please connect your", " no connected account",
		// A tool or client too old for the call: a person installs the
		// newer one.
		" or higher please upgrade", " or later please upgrade", " or newer please upgrade",
		" is more than a year old", " please download the current version", " please download the latest version",
		" version is too old", " client is too old", " is too old please upgrade", " is too old please update",
	}, patterns: []*regexp.Regexp{
		// A program the tool runs that is not on the PATH ("gcc not found
		// in PATH", "could not find cdb in PATH"): a person installs it.
		re(` not found(?: [a-z0-9]+){0,8} (?:in|on) (?:your |the )?path\b`),
		re(` find(?: [a-z0-9]+){1,8} (?:in|on) (?:your |the )?path\b`),
	}},
	tBilling: {kind: kBilling, phrases: []string{
		" billing details", " check your billing", " billing account", " billing is not enabled",
		" billing not enabled", " billing has not been enabled", " billing hard limit",
		" billing issue", " billing problem", " billing error", " billing disabled",
		" billing is disabled", " billing information", " billing must be enabled",
		" enable billing", " billing to be enabled", " payment required", " payment method",
		" payment failed", " insufficient funds", " insufficient balance", " credit balance",
		// A trading member's margin below what an order needs: money to
		// add, like a balance.
		" insufficient margin",
		// A licence's limit on seats or connections reached: someone buys
		// more (a pool whose licences are all in use frees itself, and is
		// not this).
		" licence reached", " license reached", " number of licensed",
		// A paid tier the feature needs ("Hevy Pro is required to use
		// the API", "only for Premium users"): someone buys it.
		" pro users", " premium users", " plus subscribers", " premium subscribers", " pro subscribers",
		" pro is required", " premium is required", " subscription is required", " requires a pro ",
		" requires a premium ", " requires a paid ",
		" out of credits", " account has run out of", " account has ran out of", " insufficient credits", " no credits", " credits exhausted",
		" run out of credits", " ran out of credits", " exceeded your current quota",
		" insufficient quota", " insufficient_quota", " upgrade your plan", " upgrade your account",
		" plan limit", " plan does not", " your plan", " current plan", " subscription has expired",
		" subscription expired", " subscription required", " subscription is required",
		" subscription is inactive", " trial has expired", " trial expired",
		" trial period has ended", " trial period is over", " trial is over", " trial has ended",
		" trial period has expired", " account is suspended", " account suspended",
		" account has been suspended", " account is past due", " past due", " daily limit",
		" monthly limit", " monthly quota", " daily quota", " quota for today", " per day", " per month",
		" card was declined", " card declined", " spending limit", " usage limit", " usage cap",
		" hard limit", " paid plan", " paid subscription", " pro plan", " premium plan",
		" enterprise plan", " requires a subscription", " requires an active subscription",
		" requires a paid", " requires an upgrade", " budget has been exceeded", " budget exceeded", " insufficient budget",
		" exceeded your budget", " exceeded the budget", " over budget", " not enough funds",
		" not enough balance", " balance is too low", " balance too low",
		" underfunded", " overdrawn", " buying power",
		// An upsell: "get Gold for unlimited likes".
		" for unlimited",
		// A plan or a licence to change: "quota exceeded, change plan".
		" change plan", " change your plan", " license quota", " licence quota",
		" license limit", " licence limit", " exceeds licensed", " exceeds the licensed",
	}, patterns: []*regexp.Regexp{re(` requires? (?:a |an )?(?:pro|premium|paid|business|enterprise|team|plus|higher) (?:plan|subscription|account|tier|license|edition)`),
		re(` trial(?: period| version| license| licence)?(?: [a-z0-9]+){0,4} (?:is over|has ended|ended|has expired|expired) `),
		re(` per [0-9]+ (?:months?|days?)\b`)}},
	// A quota on how many of a resource an account may hold (cores,
	// instances, networks: "40 requested, 32 allowed") is raised by a
	// person; a quota on a rate ("per minute") refills on its own (tRate,
	// read next).
	tQuotaCount: {kind: kBilling, phrases: []string{
		" cores quota", " vcpu quota", " vcpus quota", " cpus quota", " instances quota",
		// A quota whose message asks for more of it to be granted.
		" allocate more", " increase the quota", " increase your quota", " raise the quota", " raise your quota",
		" quota increase",
	}, patterns: []*regexp.Regexp{
		re(` quota(?: [a-z0-9]+){0,8} (?:requested [0-9]+|[0-9]+ requested)(?: [a-z0-9]+){0,8} (?:allowed|used|limited)\b|` +
			` quota(?: [a-z0-9]+){1,4} exceeded limit [0-9]+(?: [0-9]+)? in region | quota limit(?: [a-z0-9]+){1,5} count exceeded`),
		re(` requested(?: [a-z0-9]+){1,8} used(?: [a-z0-9]+){1,8} limited `),
	}, unless: []string{" per minute", " per second", " per hour", " per day", " per 100 seconds", " tokens per", " requests per", " rate limit", " tpm ", " rpm "}},
	tStorage: {kind: kStorageFull, phrases: []string{
		" storage quota", " storage limit", " storage is full", " storage full", " disk quota",
		" no space left", " out of storage", " mailbox full", " mailbox is full",
		" quota for storage", " insufficient storage", " out of disk space", " disk is full",
		" disk full", " not enough space", " not enough disk space", " insufficient space",
		" insufficient disk space", " not enough free space", " insufficient free space", " paging file is too small",
	}},
	tRate: {kind: kRateLimit, phrases: []string{
		" rate limit", " ratelimit", " rate exceeded", " too many requests", " too many request ",
		" throttl", " slow down", " request limit", " requests per ", " tokens per min",
		" request rate", " rate of requests", " quota exceeded", " exceeded quota",
		" exceeded the quota", " exceeded your quota", " quota has been exhausted",
		" quota exhausted", " resource exhausted", " resource has been exhausted",
		" resources exhausted", " too many concurrent", " concurrency limit",
		" concurrent requests", " concurrent request limit", " requests limit", " calls per ",
		" exceeded the rate", " enhance your calm", " too many attempts", " too many calls",
		" request too frequent", " requests too frequent", " too frequently", " too frequent requests",
		" over qps", " qps limit", " qps exceeded", " exceeded qps", " exceeds qps", " queries per second",
		// Rate-limit headers or metadata beside another error report the
		// budget left, not that it ran out.
		// A solver that gave up on one step after its own attempts, and a
		// query over a per-query byte limit, are no rate a wait refills.
		// A wait the message counts out before the next request ("please
		// wait 180 seconds before requesting a new OTP") is a window.
	}, patterns: []*regexp.Regexp{
		re(` wait(?: for)? [0-9]+ (?:more )?(?:seconds?|secs?|minutes?|mins?) before `),
	}, unless: []string{" ratelimit remaining", " ratelimit limit", " ratelimit reset", " rate limit remaining",
		" for this increment", " bytes limit"}},
	tOverloaded: {kind: kOverloaded, phrases: []string{
		" overloaded", " over capacity", " at capacity", " out of capacity",
		" insufficient capacity", " server is busy", " servers are busy", " server busy",
		" service is busy", " high demand", " too many connections", " too many clients",
		" high call volume", " high volume of calls",
		" max number of clients", " connection pool exhausted", " pool exhausted",
		" remaining connection slots", " connection slots are reserved", " pool is exhausted",
		" no available workers", " queue is full", " queue full", " temporarily overloaded",
		" heavy load", " under load", " too many simultaneous",
		// A queue, mempool or buffer that is full drains on its own; a
		// disk or a mailbox that is full (tStorage, read earlier) does not.
		" mempool is full", " buffer is full", " backlog is full", " pool is full", " send queue full",
		// A circuit breaker that is open sheds calls, unprocessed, until it half-opens.
		" circuit is open", " circuit is now open", " circuit breaker is open", " circuit open", " broken circuit",
		" short circuited",
		// A virtual queue or waiting room lets the caller in on its turn.
		" virtual queue", " fila virtual", " cola virtual", " file d attente virtuelle", " you are now in line",
		// A session, class or event with no seats left is sold out.
	}, unless: []string{" capacity for session", " capacity for this session", " capacity for the session",
		" capacity for this event", " capacity for the event", " capacity for this class", " capacity for the class",
		// A thermocouple's circuit that is open is a broken wire to mend,
		// not a breaker that half-opens; a part to check is "not
		// overloaded" is a person's task.
		" thermocouple", " not overloaded",
		// A branch or service without a virtual queue offers none to wait in.
		" no tiene fila virtual", " sin fila virtual", " no tiene cola virtual", " sin cola virtual",
		" no virtual queue", " does not have a virtual queue", " has no virtual queue"}},
	tContention: {kind: kContention, phrases: []string{
		" deadlock", " lock wait", " lock timeout", " could not obtain lock",
		" could not acquire lock", " failed to acquire lock", " unable to acquire lock",
		" lock not available", " resource busy", " resource is locked", " is locked",
		" is currently locked", " locked by", " blocked by another", " serialize access",
		" serialization failure", " concurrent update", " concurrent modification",
		" concurrently modified", " write conflict", " transaction conflict",
		" retry the transaction", " restarting transaction", " object has been modified",
		" has been modified by another", " operation in progress", " operation is in progress",
		// A file another program holds open (Windows' sharing violation)
		// is free once that program lets go of it.
		" being used by another process", " in use by another process", " open in another program",
		// A configuration lock another session holds (NETCONF's
		// lock-denied), and a record an optimistic lock saw change.
		" lock is already held", " already holds the lock", " lock held by", " record has been changed",
		" another operation", " already in progress", " currently in progress",
		" another in progress", " in progress request", " conflicting operation",
		" optimistic lock", " version conflict", " precondition failed etag", " etag mismatch",
		" try restarting transaction", " being modified", " being updated", " being processed",
		" being deleted", " being created", " is already being", " are already being",
		" aborted by conflict", " aborted due to conflict", " aborted due to a conflict",
		" lock is already taken", " lock already taken", " lock is held by", " lock held by",
		// A document another user has checked out is free once checked in.
		" is checked out by", " checked out to another user",
		// Two requirements that conflict (a dependency graph's "version
		// conflict between a 1.2 and a 1.3") never heal by waiting.
		// A wallet, device, screen or accounting period that is locked,
		// or one the message says to unlock, waits for its owner to unlock
		// it, not for another writer to finish.
		// A period closed by a later step ("attendance for this month is
		// locked as payroll has been processed") stays closed, and so does
		// an order's address once the order has gone out to fulfilment,
		// and a match, job or round already completed.
	}, unless: []string{" already being used", " token is locked", " conflict between", " conflicts between", " unlock ", " not locked by", " wallet is locked", " device is locked", " screen is locked",
		" has been processed", " has been finalized", " has been finalised", " period is locked", " month is locked", " year is locked",
		" has been sent to", " has been shipped", " has shipped", " to fulfillment", " to fulfilment",
		" already completed", " already been completed", " has been completed", " already finished",
		// A second application for the same applicant while the first is
		// open is a duplicate, not another writer to wait for.
		" an application for this "}},
	tAuth: {kind: kAuth, phrases: []string{
		// A broadcast encoder's stream key is its credential.
		" invalid stream key", " stream key is invalid",
		" unauthenticated", " unlock your wallet", " wallet is locked", " not authenticated", " must be logged in", " must be authenticated",
		" invalid login", " password not accepted", " authentication unsuccessful", " password required",
		" authentication required", " authentication is required", " authentication failed",
		" authentication failure", " authentication error", " authentication credentials",
		" authentication token", " auth required", " auth failed", " invalid credentials",
		" bad credentials", " wrong credentials", " incorrect credentials", " invalid api key",
		" invalid apikey", " invalid x api key", " incorrect api key", " api key not valid",
		" api key is invalid", " api key invalid", " api key expired", " api key has expired",
		" api key is missing", " missing api key", " no api key", " api key required",
		" api key was not provided", " api key not found", " api key is not valid",
		" invalid token", " invalid access token", " invalid auth", " invalid authentication",
		" invalid bearer", " invalid session", " invalid jwt", " invalid refresh token",
		" invalid id token", " token expired", " token has expired", " token is expired",
		" token was expired", " token has been expired", " expired token", " token is invalid",
		" token invalid", " token revoked", " token has been revoked", " token is revoked",
		" revoked token", " token is not valid", " token not valid", " jwt expired",
		" jwt is expired", " jwt has expired", " session expired", " session has expired",
		" session is expired", " expired session", " credentials expired",
		" credentials have expired", " expired credentials", " credentials are invalid",
		" password expired", " password has expired", " login required", " login is required",
		" please log in", " please login", " please sign in", " sign in again", " log in again",
		" login again", " not logged in", " reauthenticate", " re authenticate", " reauthorize",
		" re authorize", " password authentication failed", " using password", " login failed",
		" login failure", " security token included in the request is", " invalid grant",
		" invalid client", " unauthorized client", " noauth", " wrongpass",
		" missing authentication", " missing credentials", " no credentials",
		" could not be authenticated", " failed to authenticate", " unable to authenticate",
		" requires authentication", " credentials were not provided", " credentials not provided",
		" missing authorization", " authorization header is missing", " no authorization header",
		" invalid authorization", " authorization required", " authorization has expired",
		" signature expired", " signature does not match",
		" signature we calculated does not match", " access key id you provided does not exist",
		" client token id", " not signed in", " sign in required", " sign in to",
		" expired access token", " access token expired", " access token has expired",
		" access token is expired", " access token is invalid", " credentials could not be",
		" could not load credentials", " unable to locate credentials", " no valid credentials",
		" bad username or password", " invalid username or password",
		" incorrect username or password", " invalid password", " incorrect password",
		" wrong password", " reconnect your", " no access token", " access token is missing",
		" missing access token", " access token required", " no token provided",
		" token not provided", " token is missing", " missing token", " token required",
		" reconnect the", " connect your account", " link your account", " account is not linked",
		" account not linked", " account is not connected", " integration is not connected",
		" provide credentials", " two factor authentication required", " 2fa required",
		" mfa required", " multi factor authentication required",
	}, patterns: []*regexp.Regexp{
		// A named credential that is invalid or was never given ("Invalid
		// GitHub token", "No npm token specified"); a page or continuation
		// token that is invalid is a bad argument (unless).
		re(` invalid (?:[a-z0-9]+ ){1,2}(?:token|api key) `),
		re(` no (?:[a-z0-9]+ ){1,2}(?:token|api key) (?:specified|provided|found|set|configured|given)`),
		re(` missing (?:[a-z0-9]+ ){1,2}(?:token|api key)\b`),
		re(` token must not be (?:blank|empty)\b`),
		re(` passphrase(?: [a-z0-9]+){0,10} (?:is )?(?:incorrect|wrong|invalid)\b`),
		// A token that lacks a scope was accepted: permission, not sign-in.
	}, unless: []string{" page token", " continuation token", " next token", " pagination token", " sync token", " csrf token", " missing required scope", " is missing scope"}},
	tPolicy: {kind: kPolicy, phrases: []string{
		" content policy", " content filter", " content management policy", " content moderation",
		" moderation", " safety system", " safety filter", " safety policy", " safety settings",
		" safety reasons", " violates our", " violate our", " violation of our", " violates the",
		" usage policy", " usage policies", " acceptable use", " terms of service", " terms of use",
		" not allowed by policy", " not allowed by your", " by your administrator",
		" by your admin", " by the administrator", " blocked by policy", " by policy",
		" policy violation", " policy violated", " violates policy", " violates a policy",
		" organization policy", " organization s policy", " org policy", " organizational policy",
		" workspace policy", " admin policy", " administrator policy", " security policy",
		" company policy", " tenant policy", " conditional access", " data loss prevention",
		" dlp ", " guardrail", " responsible ai", " prohibited", " disallowed content", " flagged",
		" sensitive words", " contains sensitive", " legal reasons", " unavailable for legal", " dmca", " takedown", " export control",
		" sanction", " embargo", " moratorium", " blocked by", " has been blocked", " have been blocked",
		" been blocked", " was blocked", " is blocked", " access blocked", " blocked due to",
		" restricted by", " jailbreak", " harmful", " unsafe content", " prompt was blocked",
		" recitation", " denied by policy", " policy denied", " policy does not allow",
		" policy prohibits", " not permitted by", " against policy", " against our policy",
		" as per operator policy", " as per our policy", " as per the policy", " per operator policy",
		" against our policies", " against our terms", " against our guidelines", " against our community",
		" meet our guidelines", " meet our advertising guidelines", " meet our listing guidelines",
		" blocklist", " blacklist", " denylist", " deny list", " block list",
		" community guidelines", " content guidelines", " spam", " compliance policy",
		" contain contact details", " contains contact details", " contact details or links",
		" compliance rules", " for compliance reasons", " ethical wall", " copyrighted", " copyright infringement",
		" copyright violation", " copyright claim", " copyright complaint", " copyright strike",
		// A place or an airspace closed by its owner's rule.
		" lockdown is active", " in lockdown", " no fly zone", " restricted airspace",
		// Where the request comes from, not who sends it: a country, a
		// region or an address the service's rules keep out.
		" restricted location", " residents of your country", " not available in your country",
		" not available in your region", " only works in the", " origin is not allowed", " ip is not allowed",
		" ip address is not allowed", " client address is not authorized", " invalid request ip",
	}, patterns: []*regexp.Regexp{
		re(` ip(?: [a-z0-9]+){1,8} (?:is )?not (?:allowed|authori[sz]ed|whitelisted|permitted)\b`),
		// A platform's own posting or content rules, named after it
		// ("violates apna job posting guidelines"): a constraint of a
		// schema is no guideline, so tInvalid's bare " violates" stays.
		re(` violat(?:es|ed|ing) (?:[a-z0-9]+ ){0,4}(?:guidelines|policy|policies|standards)\b`),
		// An allow list kept on an API key or client is that key's
		// permission (docs/classification.md, Permission), not a network rule.
	}, unless: []string{" by the user", " blocked by user", " user blocked", " user has blocked", " blocked you",
		" for this api key", " for this api client",
		// A publisher's embargo on a record is a date field, not a trade
		// embargo.
		" embargo release date", " embargo date", " embargo period", " embargoed until"}},
	tUnsupportedStrong: {kind: kUnsupported, phrases: []string{
		" method not allowed", " not implemented", " unimplemented", " unknown method",
		" method not found", " no such method", " unknown tool", " tool not found", " no such tool",
		" unknown command", " command not found", " not found in path",
		" executable file not found", " unsupported operation", " operation not supported",
		" operation is not supported", " not supported", " unsupported", " is deprecated",
		" has been deprecated", " are disabled for this", " is disabled for this",
		" has been disabled for this", " was deprecated", " no longer supported", " end of life",
		" decommissioned", " does not support", " doesn t support", " do not support",
		" don t support", " unknown operation", " unknown action", " unrecognized method",
		" unrecognized command", " invalid action", " not available in this",
		" not available for this", " not available on this", " feature not available",
		" feature is not available", " capability", " no handler", " unknown endpoint",
		" no route matched", " no matching route", " no route found", " endpoint not found",
		" route not found", " unknown rpc", " not yet supported", " does not yet support", " doesn t yet support",
		" not yet implemented", " no such cmd", " no such command", " no such action", " no such task",
		// What a service does not do on a route, at a centre or for a
		// plan ("we do not offer rail freight between these ports").
		" do not offer", " does not offer", " don t offer", " doesn t offer", " do not currently offer",
		" does not currently offer", " not offered at ",
		" not offered in ", " not offered for ", " not offered on ", " not offered between ",
	}, patterns: []*regexp.Regexp{re(` tool (?:[a-z0-9]+ ){1,6}(?:not found|does not exist|is not registered) `),
		// An action an agent framework does not have.
		re(` action(?: [a-z0-9]+){1,3} (?:don t|doesn t|does not) exist\b`)}},
	tPermission: {kind: kPermission, phrases: []string{
		" members only", " only for members", " only members can",
		// Another member who blocked the caller decided: no rule of the
		// service's did.
		" have blocked you", " has blocked you",
		" permission denied", " permissions denied", " access denied", " access is denied",
		" access forbidden", " forbidden", " not authorized to", " not authorised to",
		" is not authorized", " are not authorized", " unauthorized to", " not permitted",
		" isn t allowed to", " aren t allowed to", " isn t authorized to", " isn t permitted to",
		" insufficient permission", " insufficient privilege", " insufficient scope",
		" insufficient access", " insufficient rights", " missing permission", " missing scope",
		" missing required scope", " required scope", " required permission",
		" requires permission", " requires the permission", " do not have permission",
		" does not have permission", " don t have permission", " do not have access",
		" does not have access", " don t have access", " doesn t have access", " have no access",
		" no access to", " has no access", " no permission", " lacks permission",
		" lack permission", " lacks the", " not allowed to", " is not allowed", " are not allowed",
		" not accessible by", " not in channel", " not a member", " privileges", " cannot access",
		" can t access", " restricted action", " admin only", " only admins",
		" only administrators", " only the owner", " administrator privileges", " requires admin",
		" permission error", " must have permission", " requires elevated",
		" access to this resource", " not have the required", " insufficient authorization",
		" role does not", " not enough permissions", " permission to", " read only user",
		" read only access", " write access", " read access", " is read only",
		" requires elevation",
	}, patterns: []*regexp.Regexp{
		re(` only (?:the )?(?:[a-z]+ ){0,2}(?:admins|administrators|owners|owner|moderators|maintainers) (?:can|may|are)`),
		// A database that knows the user but not the grant: "not
		// authorized on admin to execute command" (MongoDB's wording).
		re(` not authori[sz]ed on (?:[a-z0-9]+ ){1,4}to (?:execute|run|perform|access|read|write)`),
	}},
	tAuthWeak: {kind: kAuth, phrases: []string{" unauthori", " authentication", " credentials", " 401 "}},
	tDNS: {kind: kDNS, phrases: []string{
		// ENOTFOUND is the errno rule's: it reads it as a failed lookup
		// only where the message shows one (see nameLookup).
		" eai again", " eai noname", " getaddrinfo", " no such host ",
		" name or service not known", " temporary failure in name resolution", " temporary failure resolving", " name resolution",
		// "resolve" alone is as often a dependency, a symbol or a
		// reference that cannot be resolved, which never heals: a host
		// or an address must be named.
		" could not resolve host", " couldn t resolve host", " failed to resolve host", " unable to resolve host",
		" could not resolve address", " failed to resolve address", " unable to resolve address",
		" could not resolve hostname", " cannot resolve host", " can t resolve host",
		" unknown host", " unknownhost", " nodename nor servname", " server misbehaving", " servfail",
		" host not found", " resolve host",
		// "DNS" must be the failure, not a system's name ("dnsmasq: bad
		// option") nor what a DNS service manages ("DNS record not found").
		" dns lookup", " dns resolution", " dns resolve", " dns error", " dns failure", " dns query",
		" dns timeout", " dns server", " dns probe", " dns request", " dns name resolution",
		" dns problem", " dns issue",
	}},
	tRefused: {kind: kRefused, phrases: []string{
		" econnrefused", " connection refused", " actively refused",
		" failed to establish a new connection", " no connection established", " could not connect",
		" couldn t connect", " unable to connect", " failed to connect", " cannot connect",
		" can t connect", " host is unreachable", " no route to host", " network is unreachable",
		" ehostunreach", " enetunreach", " cannot assign requested address", " connect failed",
		" connection failed", " error connecting", " failed to open connection", " refused connection",
		// A broker that refuses a client for who it is (MQTT's CONNACK
		// "Connection Refused: not authorised") refused the credentials,
		// not the connection: that never heals by retrying.
		// "Connect failed: cannot get provider secret: secret not found",
		// "error connecting to repository: repository not initialized": the
		// cause that follows is what failed, and it does not heal by waiting.
	}, unless: []string{" not authorised", " not authorized", " bad user name or password", " bad username or password",
		" not found", " not initialized", " not been initialized", " banned",
		// A probe, debugger or emulator picked by its serial number that
		// is not attached is missing, not a network failure.
		" with serial number",
		// A server's rule that rejects this client, or a browser that
		// will not start as root: configuration, not the network.
		" rejects connection", " running as root",
		// A socket this side could not bind (its port is held): the
		// connection that fails next is its consequence, not the network's.
		" unable to bind", " failed to bind", " could not bind", " cannot bind", " does not exist",
		// A peer that answered with the wrong magic number speaks another
		// version of the protocol: an agent to reinstall, not a network.
		" magic number",
		// A licence's limit on connections is lifted by buying seats, not
		// by waiting.
		" licence reached", " license reached", " licence limit", " license limit"},
		patterns: []*regexp.Regexp{re(` connection to(?: [a-z0-9]+){1,6} refused\b`)}},
	tTimeout: {kind: kTimeout, phrases: []string{
		" timed out", " timeout ", " timeouts", " time out", " deadline exceeded", " deadline has elapsed",
		" deadline expired", " etimedout", " esockettimedout", " took too long", " took longer than",
		" did not respond in time", " did not respond to", " did not respond within", " not acknowledged within", " did not complete in time", " no response from",
		" i o timeout", " canceling statement due to", " statement timeout", " query timeout",
		" timeout of ", " exceeded the timeout", " request timeout", " gateway timeout",
		" gateway time out",
		// A browser driver that waited for an element that never appeared
		// says the page has no such element, whatever the wait was.
		// WebAuthn's NotAllowedError says a timeout or a refusal alike: the
		// person did not complete the ceremony.
		// A hold that timed out and let its seats go must be made again,
		// with a new choice: the same call does not come back.
	}, unless: []string{" to be located", " unknownobjectexception", " nosuchelementexception", " no such element", " or was not allowed",
		" seats have been released", " select your seats again", " is misconfigured",
		// A chain's transaction past its timeout height must be signed
		// again with a later one (the Cosmos SDK's ErrTxTimeoutHeight).
		" timeout height"}},
	tNetwork: {kind: kNetwork, phrases: []string{
		" econnreset", " connection reset", " reset by peer", " broken pipe", " epipe",
		" econnaborted", " connection aborted", " connection closed", " connection was closed",
		" connection lost", " connection dropped", " connection terminated", " connection error",
		" server closed the connection", " closed the connection", " remote end closed",
		" remotely closed", " socket hang up", " socket closed", " fetch failed", " network error",
		" network request failed", " err network", " unexpected eof", " eof ", " premature close",
		" stream terminated", " stream reset", " stream closed", " rst stream", " goaway",
		" upstream connect error", " disconnect reset", " tls handshake", " ssl handshake",
		" handshake failed", " connection interrupted", " use of closed network connection",
		" context canceled", " request aborted", " und err",
		" communications link failure", " communication error", " communications error", " communication failure",
		" network changed", " empty response",
		" internet disconnected", " packets lost", " packet loss", " max retries", " maximum retries", " retries exceeded",
		" retries exhausted", " maximum number of retries", " gone away", " lost connection",
		" econnreset", " socket error", " transport error", " protocol error",
		" cannot reach", " can t reach", " could not reach", " couldn t reach", " unable to reach", " failed to reach",
		// A parser that met the end of its input ("Parse error ... got
		// 'EOF'") speaks of a truncated or malformed document, not of a
		// dropped connection; an EOF read from a local pipe ("getting the
		// child's pid from pipe caused: EOF") is a child process that died
		// on start.
	}, unless: []string{" parse error", " syntax error", " from pipe"}},
	tBadResponse: {kind: kServer, phrases: []string{
		" expecting value line 1 column 1 char 0", " looking for beginning of value",
		" unexpected token doctype", " unexpected token html", " unexpected end of json input",
		" invalid json response", " non json response", " not a json response", " returned html",
		" unexpected content type", " empty reply from server", " empty response from",
	}},
	tTooLarge: {kind: kTooLarge, phrases: []string{
		" too large", " too big", " too long", " larger than", " exceeds the maximum",
		" exceeds maximum", " exceeds the max", " exceeds max", " exceed the maximum",
		" exceeds the limit", " exceeds limit", " maximum size", " max size", " size limit",
		" payload too large", " entity too large", " request too large", " message too large",
		" maximum length", " max length", " maximum context", " context length", " context window",
		" reduce the length", " too many tokens", " token limit", " exceeds the token",
		" maximum number of", " max number of", " exceeded maximum", " exceeded the maximum",
		" exceeds the allowed",
	}},
	tUnsupported: {kind: kUnsupported, phrases: []string{
		" no longer available", " unknown model", " sunset", " invalid mime", " mime type",
		" media type", " file type", " format is not",
		// A room, seat or offer someone else took is gone, not a feature
		// withdrawn.
	}, unless: []string{" room is no longer available", " rooms are no longer available", " seat is no longer available",
		" seats are no longer available", " slot is no longer available", " offer is no longer available",
		" listing is no longer available", " ticket is no longer available", " item is no longer available",
		" product is no longer available", " time is no longer available", " appointment is no longer available"}},
	tNotFound: {kind: kNotFound, phrases: []string{
		" not found", " notfound", " does not exist", " do not exist", " doesn t exist",
		" don t exist", " did not exist", " no such", " nosuch", " cannot find", " can t find",
		" could not find", " couldn t find", " unable to find", " unable to locate",
		" could not locate", " not exist", " no longer exists", " has been deleted", " was deleted",
		// A node that pruned the history asked for (EIP-4444) no longer has it.
		" pruned history",
		" been removed", " was removed", " unknown user", " unknown channel", " unknown repository",
		" unknown project", " unknown file", " unknown id", " no matching", " resource missing",
		" missing resource", " enoent", " 404 ", " gone", " no record", " not be found",
		" nonexistent", " non existent", " unknown bucket", " unknown table", " unknown database",
		" unknown column", " no rows in result set", " is deleted", " no results",
	}, unless: undeclaredName,
		patterns: []*regexp.Regexp{re(` no (?:[a-z0-9]+ ){1,3}(?:was |were |could be |is )?found `),
			// "There is no user named someone-unknown": a name that
			// matches nothing.
			re(` there is no (?:[a-z0-9]+ ){1,2}(?:named|called)\b`)}},
	tExists: {kind: kExists, phrases: []string{
		" already exists", " already exist", " already in use", " already taken",
		" already registered", " duplicate", " already been", " name is taken", " conflict",
		" unique constraint",
		// Windows' words for EADDRINUSE (WSAEADDRINUSE, 10048).
		" only one usage of each socket address",
		// A VM, domain or browser "already running" is in the state the
		// request asks for; another instance already running is a wait.
	}, unless: []string{" another instance"}, patterns: []*regexp.Regexp{re(` already (?:[a-z]+ ){0,2}(?:exists|taken|booked|reserved|registered|used|assigned|allocated|linked|subscribed|a member|running) `)}},
	tInvalid: {kind: kInvalid, phrases: slices.Concat(undeclaredName, []string{
		// A quantity the shop does not have: the order must ask for less.
		" quantity unavailable", " quantity not available", " quantity is not available", " insufficient stock",
		" invalid", " not valid", " is required", " are required", " required field",
		" required parameter", " required argument", " required property", " required key",
		" is missing", " missing required", " missing field", " missing parameter",
		" missing argument", " missing property", " missing value", " missing key", " must be",
		" must not", " must have", " must contain", " must match", " must specify", " must provide",
		" should be", " cannot be empty", " cannot be blank", " can t be blank", " cannot be null",
		" may not be", " malformed", " bad request", " validation", " expected", " out of range",
		" too short", " too small", " not a valid", " unrecognized", " parse error",
		" failed to parse", " could not parse", " unable to parse", " cannot parse",
		" syntax error", " wrong type", " type mismatch", " incorrect", " illegal", " bad value",
		" bad argument", " expecting ", " cannot unmarshal", " cannot decode", " json decode",
		" unexpected token", " unexpected field", " unexpected argument", " unexpected parameter",
		" unexpected value", " unexpected type", " unexpected keyword", " unknown field",
		" unknown parameter", " unknown argument", " unknown property", " constraint",
		" not a number", " failed precondition", " precondition", " required", " violates",
		" bad input", " not permitted value", " unknown value", " errno 22", " einval",
		" value error", " missing", " is empty", " not empty", " cannot transition",
		" invalid transition", " invalid state", " not in a valid state", " in the wrong state",
		" non empty", " is archived", " has been archived", " provide a valid", " please provide",
		" please specify",
	}),
		// A gateway that got "an invalid response from the upstream"
		// (nginx's and Apache's 502 wording) says the server behind it
		// failed, not that the call was malformed: tServer reads it.
		unless: []string{" bad gateway", " invalid response from the upstream", " invalid response from upstream", " invalid response from an upstream"}},
	tUnavailable: {kind: kUnavailable, phrases: []string{
		" unavailable", " temporarily", " temporary", " maintenance", " starting up",
		" shutting down", " not ready", " try again", " retry", " please wait", " warming up",
		// "Not available" alone is as often a package, a function or a
		// state transition that does not exist: a service or a time must
		// be named.
		" unreachable", " not available at this time", " currently not available", " not currently available",
		" service not available", " server not available", " not available right now", " not available at the moment",
		" temporarily not available", " currently down", " is offline", " is off line", " is currently offline",
		" went offline", " appears to be offline", " is not reachable", " not reachable at", " is not responding", " client not responding",
		" server not responding",
		" is down", " outage", " experiencing delays", " experiencing a delay",
		// A consensus cluster electing a leader answers again once it has one.
		" leader changed", " no leader", " not the leader", " leader election",
		// A meter's or a PLC's object that the device does not have
		// (DLMS OBJECT_UNAVAILABLE): the address is wrong, not the device.
		// "Repair the mesh and try again": the caller must change something
		// first; so must a deployment whose message names its own
		// misconfiguration ("the container port is misconfigured"); so
		// must one who is asked to "check and try again" what they sent,
		// or to check a number, a code, a key or details "and try again".
		// A car or a room "unavailable for the selected period" is booked:
		// the call must pick another (docs/classification.md, Conflicts).
		// A device busy with another session that the person is asked to
		// close waits for them, not for time.
	}, unless: []string{" object unavailable", " repair the ", " correct the ", " is misconfigured", " check and try again",
		" number and try again", " code and try again", " id and try again", " key and try again",
		" details and try again", " spelling and try again", " credentials and try again", " pin and try again",
		" unavailable for the selected", " not available for the selected", " close the other session", " close the other connection"}},
	tServer: {kind: kServer, phrases: []string{
		" internal error", " internal server", " server error", " unexpected error",
		" something went wrong", " bad gateway", " upstream", " backend error",
		// Not " exception", " fatal" or " internal" alone: every kind of
		// failure is raised as an exception or logged as fatal.
		" unknown error", " an error occurred",
	}},
	// A process that "crashed" or panicked, said of the tool's own process,
	// its controller or its language server, is a defect
	// (docs/classification.md, Bugs in the tool's own code): retrying runs
	// the same code. A status code that says the server failed is read
	// before the message, and a message that asks to try again is read as
	// transient first.
	tCrashed: {kind: kDefect, phrases: []string{" crashed", " panic"}},
	tBlocked: {kind: kPolicy, phrases: []string{" blocked", " banned", " suspended"}},
	// A 429 whose limit only a person can raise: the server's total is
	// reached, or its admin is to be asked. Read only on a 429 (see
	// allSets): anywhere else these words go with refusals of every kind.
	tQuotaPerson: {kind: kBilling, phrases: []string{
		" contact the admin", " contact your admin", " contact the administrator", " contact your administrator",
		" quota set for the", " total number of",
	}, unless: []string{" too many", " rate limit", " slow down", " try again", " retry", " per minute", " per second", " per hour"}},
	tDenied: {kind: kPermission, phrases: []string{" denied", " refused", " not allowed", " restricted", " disallowed", " not authorized", " not authorised"}},
}

// textOrder is the order in which the message heuristics try the sets.
var textOrder = []textSet{
	tConfirm, tSetup, tBilling, tQuotaCount, tStorage, tRate, tOverloaded, tContention, tAuth, tPolicy,
	tUnsupportedStrong, tPermission, tAuthWeak, tDNS, tRefused, tTimeout, tNetwork, tBadResponse, tTooLarge,
	tUnsupported, tNotFound, tExists, tInvalid, tUnavailable, tBlocked, tDenied, tCrashed, tServer, tQuotaPerson,
}

// setMask is a set of textSets.
type setMask uint32

func mask(sets ...textSet) setMask {
	var m setMask
	for _, s := range sets {
		m |= 1 << s
	}
	return m
}

var (
	// allSets are the readings of a message on its own; tQuotaPerson is
	// read only where a 429 allows it.
	allSets = setMask(1<<setCount-1) &^ mask(tQuotaPerson)
	// governanceSets are the readings that can overrule any status code
	// that is not itself specific.
	governanceSets = mask(tConfirm, tSetup, tBilling, tQuotaCount, tStorage, tAuth, tPolicy)
	// reliabilitySets are the strong transient readings: a message that
	// says "rate limit" or "deadlock" means it whatever the status.
	reliabilitySets = mask(tRate, tOverloaded, tContention)
)

// textHas reports whether any phrase of set t occurs in the text, or one of
// its patterns matches, and none of its unless phrases occurs.
func (s *signals) textHas(t textSet) bool {
	switch s.textHits[t] {
	case 1:
		return true
	case -1:
		return false
	}
	if !s.scanned {
		s.phraseHits, s.unlessHits, s.patternGates = phrases.scan(s.text)
		s.scanned = true
	}
	hit := s.phraseHits&(1<<t) != 0
	for i, p := range textSets[t].patterns {
		if hit {
			break
		}
		// A pattern whose literal start is missing from the text cannot match.
		if s.patternGates&(1<<phrases.gate[t][i]) != 0 {
			hit = p.MatchString(s.text)
		}
	}
	if hit && s.unlessHits&(1<<t) != 0 {
		hit = false
	}
	if hit {
		s.textHits[t] = 1
	} else {
		s.textHits[t] = -1
	}
	return hit
}

// phraseIndex finds every phrase of every set, and the literal start of
// every text pattern, in one pass over a normalized text (package literal).
type phraseIndex struct {
	m       *literal.Matcher // phrase → its index in entries
	entries []phraseEntry
	// gate[t][i] is the bit, in the scan's gates, of the literal start of
	// textSets[t].patterns[i].
	gate [setCount][]uint8
}

// phraseEntry is what finding one distinct phrase means: the sets it
// belongs to, the sets whose unless list has it, and the patterns whose
// literal start it is.
type phraseEntry struct {
	hits, unless, gates uint32
}

var phrases = buildPhraseIndex()

func buildPhraseIndex() *phraseIndex {
	idx := &phraseIndex{}
	byPhrase := map[string]int32{}
	var b literal.Builder
	add := func(p string) *phraseEntry {
		if len(p) < 4 || p[0] != ' ' {
			panic("classify: phrase " + p + " does not start with a space and three more bytes")
		}
		i, ok := byPhrase[p]
		if !ok {
			i = int32(len(idx.entries))
			byPhrase[p] = i
			idx.entries = append(idx.entries, phraseEntry{})
			b.Add(p, i)
		}
		return &idx.entries[i]
	}
	gates := 0
	for t := range textSets {
		set := &textSets[t]
		for _, p := range set.phrases {
			add(p).hits |= 1 << t
		}
		for _, p := range set.unless {
			add(p).unless |= 1 << t
		}
		for _, re := range set.patterns {
			// The literal that every match starts with; like a phrase it
			// must start with a space and have three bytes after it.
			prefix, _ := re.LiteralPrefix()
			if gates == 32 {
				panic("classify: more than 32 text patterns")
			}
			add(prefix).gates |= 1 << gates
			idx.gate[t] = append(idx.gate[t], uint8(gates))
			gates++
		}
	}
	// The normalized text is already in lower case.
	idx.m = b.Build(literal.Exact)
	return idx
}

// scan returns the sets with a phrase in text, the sets with an unless
// phrase in text, and the pattern gates whose literal is in text.
func (idx *phraseIndex) scan(text string) (hits, unless, gates uint32) {
	idx.m.Scan(text, func(id int32, _ int) bool {
		e := &idx.entries[id]
		hits |= e.hits
		unless |= e.unless
		gates |= e.gates
		return true
	})
	return hits, unless, gates
}

// textKind returns the kind of the first set in textOrder that is allowed
// and matches.
func (s *signals) textKind(allowed setMask) (kind, bool) {
	for _, t := range textOrder {
		if allowed&(1<<t) != 0 && s.textHas(t) {
			return textSets[t].kind, true
		}
	}
	return kNone, false
}

// wordsKind classifies a bare code such as "sender_profile_unavailable" by
// the same phrases, applied to its words only.
func wordsKind(code string, allowed setMask) (kind, bool) {
	var b textBuilder
	b.add(code)
	w := signals{text: b.String()}
	return w.textKind(allowed)
}
