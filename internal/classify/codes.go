package classify

// Tables of error names seen in the wild, keyed by normalizeCode: lower
// case, letters and digits only, one trailing "exception", "error", "exc" or
// "fault" removed. "ThrottlingException", "throttling_error" and
// "Throttling" are therefore one key.

// vendorCodes are specific error codes of cloud and SaaS APIs (AWS, Google,
// Azure, Kubernetes, OpenAI, Anthropic, Stripe, GitHub, Slack, OAuth). They
// are precise enough to overrule an HTTP status: AWS throttles with HTTP
// 400 and expired AWS tokens come back as 403.
var vendorCodes = map[string]kind{
	// Throttling and quotas that refill.
	"throttling": kRateLimit, "throttled": kRateLimit, "requestthrottled": kRateLimit,
	"ratelimit": kRateLimit, "ratelimited": kRateLimit, "ratelimitexceeded": kRateLimit,
	"ratelimitreached": kRateLimit, "userratelimitexceeded": kRateLimit, "slowdown": kRateLimit,
	"requestlimitexceeded": kRateLimit, "provisionedthroughputexceeded": kRateLimit,
	"bandwidthlimitexceeded": kRateLimit, "abuseratelimit": kRateLimit,
	"secondaryratelimit": kRateLimit, "concurrencylimitexceeded": kRateLimit,
	"toomanyrequests": kRateLimit, "ec2throttled": kRateLimit,
	"priorrequestnotcomplete": kRateLimit, "requestratetoolarge": kRateLimit,
	"tpmlimitexceeded": kRateLimit, "rpmlimitexceeded": kRateLimit,
	"messagelimitexceeded": kRateLimit, "overloaded": kOverloaded, "serverbusy": kOverloaded,
	"servicebusy": kOverloaded, "engineoverloaded": kOverloaded,

	// Service-side failures.
	"internalfailure": kServer, "internalserver": kServer, "internal": kServer, "fatal": kServer,
	"backend": kServer, "apiconnection": kNetwork, "apitimeout": kTimeout,
	"modelnotready": kUnavailable, "modeltimeout": kTimeout, "requesttimeout": kTimeout,
	"operationtimedout": kTimeout, "timeout": kTimeout, "serviceunavailable": kUnavailable,
	"temporarilyunavailable": kUnavailable, "transactionconflict": kContention,
	"transactioninprogress": kContention, "operationaborted": kContention,
	"conflictingoperationinprogress": kContention, "concurrentmodification": kContention,
	"operationinprogress": kContention, "idempotencykeyinuse": kContention,
	"locktimeout": kContention, "anotheroperationinprogress": kContention,

	// Authentication.
	"authentication": kAuth, "authenticationfailed": kAuth, "authenticationrequired": kAuth,
	"invalidauth": kAuth, "notauthed": kAuth, "invalidtoken": kAuth, "tokenexpired": kAuth,
	"expiredtoken": kAuth, "expiredauthenticationtoken": kAuth, "invalidauthenticationtoken": kAuth,
	"invalidauthenticationtokenaudience": kAuth, "invalidauthenticationtokentenant": kAuth,
	"invalidclienttokenid": kAuth, "unrecognizedclient": kAuth, "signaturedoesnotmatch": kAuth,
	"incompletesignature": kAuth, "missingauthenticationtoken": kAuth, "invalidaccesskeyid": kAuth,
	"authfailure": kAuth, "notauthorized": kAuth, "invalidapikey": kAuth, "apikeyinvalid": kAuth,
	"apikeyexpired": kAuth, "accesstokenexpired": kAuth, "tokenrevoked": kAuth,
	"invalidgrant": kAuth, "invalidclient": kAuth, "unauthorizedclient": kAuth,
	"loginrequired": kAuth, "credentialsexpired": kAuth, "badcredentials": kAuth,
	"nocredentials": kAuth, "invalidcredentials": kAuth, "missingcredentials": kAuth,
	"accountinactive": kAuth, "wrongpass": kAuth, "noauth": kAuth, "sessionexpired": kAuth,
	"invalidsession": kAuth, "invalidsignature": kAuth, "requestexpired": kAuth,
	"accountdeactivated": kAuth, "invalidsessionid": kAuth, "unauthenticated": kAuth,
	"unauthorized": kAuth, "invalidapikeyformat": kAuth, "orgloginrequired": kAuth,
	"notallowedtokentype": kAuth, "mfarequired": kAuth, "reauthenticationrequired": kAuth,
	"invalidbearertoken": kAuth, "tokenexpiredorinvalid": kAuth,

	// Authorisation.
	"accessdenied": kPermission, "permissiondenied": kPermission, "permission": kPermission,
	"forbidden": kPermission, "authorizationfailed": kPermission,
	"authorizationpermissionmismatch": kPermission, "insufficientpermissions": kPermission,
	"insufficientscope": kPermission, "missingscope": kPermission,
	"unauthorizedoperation": kPermission, "iampermissiondenied": kPermission,
	"accesstokenscopeinsufficient": kPermission, "insufficientprivilege": kPermission,
	"noperm": kPermission, "nopermission": kPermission, "restrictedaction": kPermission,
	"notinchannel": kPermission, "userprojectdenied": kPermission, "accessforbidden": kPermission,
	"insufficientaccountpermissions": kPermission, "apikeyserviceblocked": kPermission,
	"apikeyhttpreferrerblocked": kPermission, "apikeyipaddressblocked": kPermission,
	"ekmaccessdenied": kPermission, "teamaccessnotgranted": kPermission,
	"cantupdatemessage": kPermission, "cantdeletemessage": kPermission, "notowner": kPermission,
	"insufficientpermission": kPermission, "missingpermission": kPermission,
	"missingpermissions": kPermission, "insufficientaccessorreadonly": kPermission,
	"insufficientaccess": kPermission,

	// Policy and safety.
	"contentpolicyviolation": kPolicy, "unsupportedcountryregionterritory": kPolicy,
	"unsupportedcountry": kPolicy, "contentfilter": kPolicy, "contentfiltered": kPolicy,
	"responsibleaipolicyviolation": kPolicy, "policyviolation": kPolicy, "safety": kPolicy,
	"blockedbypolicy": kPolicy, "prohibitedcontent": kPolicy, "unavailableforlegalreasons": kPolicy,
	"dmca": kPolicy, "contentmoderation": kPolicy, "moderationblocked": kPolicy,
	"blocklist": kPolicy, "enterpriseisrestricted": kPolicy, "policyblocked": kPolicy,
	"safetyblocked": kPolicy, "organizationpolicyviolation": kPolicy, "legalhold": kPolicy,
	"invalidprompt": kPolicy,

	// A person has to act: confirm, pay, set something up.
	"insufficientquota": kBilling, "billing": kBilling, "billingdisabled": kBilling,
	"billingnotactive": kBilling, "billingnotenabled": kBilling,
	"billinghardlimitreached": kBilling, "paymentrequired": kBilling, "carddeclined": kBilling,
	"expiredcard": kBilling, "insufficientfunds": kBilling, "card": kBilling,
	"dailylimitexceeded": kBilling, "quotaexhausted": kBilling, "creditbalancetoolow": kBilling,
	"subscriptionrequired": kBilling, "accountsuspended": kBilling, "incorrectcvc": kBilling,
	"incorrectnumber": kBilling, "invalidexpiryyear": kBilling, "invalidexpirymonth": kBilling,
	"servicequotaexceeded": kBilling, "planlimitexceeded": kBilling, "quotaexceeded": kBilling, "servicedisabled": kSetup,
	"optinrequired": kSetup, "accessnotconfigured": kSetup, "accountstateinvalid": kSetup,
	"emailnotverified": kSetup, "accountnotverified": kSetup, "verificationrequired": kSetup,
	"twofactorsetuprequired": kSetup, "termsnotaccepted": kSetup, "consentrequired": kConfirm,
	"interactionrequired": kConfirm, "confirmationrequired": kConfirm, "approvalrequired": kConfirm,
	"awaitingconfirmation": kConfirm, "awaitingapproval": kConfirm,
	"userinteractionrequired": kConfirm, "urlelicitationrequired": kConfirm,
	"requiresaction": kConfirm, "requiresconfirmation": kConfirm,
	"storagequotaexceeded": kStorageFull, "insufficientstorage": kStorageFull,
	"quotaexceededstorage": kStorageFull,

	// Missing things (see also the *notfound and nosuch* rule in lookupVendor).
	"resourcemissing": kNotFound, "entityisdeleted": kNotFound, "gone": kNotFound,
	"deleted": kNotFound,

	// Bad requests.
	"validation": kInvalid, "validationfailed": kInvalid, "invalidparameter": kInvalid,
	"invalidparametervalue": kInvalid, "invalidparametercombination": kInvalid,
	"invalidargument": kInvalid, "invalidarguments": kInvalid, "invalidinput": kInvalid,
	"invalidvalue": kInvalid, "invalidparams": kInvalid, "missingparameter": kInvalid,
	"missingrequiredparameter": kInvalid, "missingfield": kInvalid,
	"missingrequiredfield": kInvalid, "missingargument": kInvalid, "invalidfield": kInvalid,
	"invalidrequestbody": kInvalid, "invalidjson": kInvalid, "malformedpolicydocument": kInvalid,
	"malformedrequest": kInvalid, "paramvalidation": kInvalid, "unprocessableentity": kInvalid,
	"serialization": kInvalid, "invalidblocks": kInvalid, "notext": kInvalid,
	"invalidname": kInvalid, "toomanyattachments": kInvalid, "invalidurl": kInvalid,
	"invalidtype": kInvalid, "invalidformat": kInvalid, "conditionalcheckfailed": kInvalid,
	"preconditionfailed": kInvalid, "failedprecondition": kInvalid, "outofrange": kInvalid,
	"isarchived": kInvalid, "channelisarchived": kInvalid, "invalidcursor": kInvalid,
	"invalidrequestparameter": kInvalid, "badrequest": kInvalid, "invalidimage": kInvalid,
	"invalidimageformat": kInvalid, "invalidemail": kInvalid, "invalidobjectstate": kInvalid,
	"cantinviteself": kInvalid, "unsupportedvalue": kInvalid, "baduserinput": kInvalid,
	"graphqlvalidationfailed": kInvalid, "graphqlparsefailed": kInvalid, "malformedid": kInvalid,
	"unsupportedparameter": kInvalid, "parametermissing": kInvalid, "parameterinvalid": kInvalid,
	"idempotency": kInvalid, "invalidid": kInvalid, "contextlengthexceeded": kTooLarge,
	"stringabovemaxlength": kTooLarge, "requesttoolarge": kTooLarge, "payloadtoolarge": kTooLarge,
	"requestentitytoolarge": kTooLarge, "entitytoolarge": kTooLarge, "messagetoolarge": kTooLarge,
	"msgtoolong": kTooLarge, "imagetoolarge": kTooLarge, "filetoolarge": kTooLarge,
	"tokenlimitexceeded": kTooLarge, "maxtokensexceeded": kTooLarge, "alreadyexists": kExists,
	"resourcealreadyexists": kExists, "resourceexists": kExists, "entityalreadyexists": kExists,
	"bucketalreadyexists": kExists, "bucketalreadyownedbyyou": kExists, "duplicate": kExists,
	"duplicatekey": kExists, "nametaken": kExists, "alreadyreacted": kExists,
	"alreadyinchannel": kExists, "duplicatevalue": kExists, "alreadyexist": kExists,
	"conflict": kExists,

	// Not supported.
	"unimplemented": kUnsupported, "notimplemented": kUnsupported, "unsupported": kUnsupported,
	"unsupportedoperation": kUnsupported, "methodnotallowed": kUnsupported,
	"unknownmethod": kUnsupported, "operationnotsupported": kUnsupported,
	"notsupported": kUnsupported, "unsupportedmediatype": kUnsupported,
	"invalidaction": kUnsupported, "unknownoperation": kUnsupported,
	"methoddeprecated": kUnsupported, "deprecatedendpoint": kUnsupported,
	"unsupportedapiversion": kUnsupported, "featurenotsupported": kUnsupported,
	"unsupportedfiletype": kUnsupported, "modelnotsupported": kUnsupported,
	"unknowntool": kUnsupported, "modulenotfound": kUnsupported,

	// The result names of the OpenAPI standard that Korea's public-data
	// portals share (data.go.kr and the agencies behind it), sent with
	// HTTP 200.
	"nodata": kNotFound, "noopenapiservice": kUnsupported, "serviceaccessdenied": kPermission,
	"servicekeyisnotregistered": kAuth, "deadlinehasexpired": kAuth, "unregisteredip": kPermission,
	"unsignedcall": kAuth, "nomandatoryrequestparameters": kInvalid, "servicetimeout": kTimeout,
	"limitednumberofservicerequestsexceeds":          kBilling,
	"limitednumberofservicerequestspersecondexceeds": kRateLimit,
}

// weakVendorCodes are canonical status names (gRPC, HTTP, Kubernetes) that
// restate a status code rather than add to it. They must not overrule the
// status itself: a 403 that says "rate limit" in its message is still a
// rate limit even if a body field says FORBIDDEN.
var weakVendorCodes = map[string]bool{
	"badrequest": true, "invalidargument": true, "notfound": true, "forbidden": true,
	"unauthorized": true, "unauthenticated": true, "permissiondenied": true, "internal": true,
	"internalserver": true, "serviceunavailable": true, "timeout": true, "conflict": true,
	"failedprecondition": true, "outofrange": true, "gone": true, "validation": true,
	"unimplemented": true, "notimplemented": true, "methodnotallowed": true,
	"toomanyrequests": true, "requesttimeout": true, "unprocessableentity": true, "deleted": true,
}

// lookupVendor finds a code in vendorCodes, falling back to the shapes
// *notfound and nosuch* that every API uses for missing objects.
func lookupVendor(code string, strongOnly bool) (kind, bool) {
	if code == "" || (strongOnly && weakVendorCodes[code]) {
		return kNone, false
	}
	if _, isErrno := errnoKinds[code]; isErrno {
		return kNone, false // ENOTFOUND is a DNS failure, not a missing object; the errno rule reads it
	}
	if k, ok := vendorCodes[code]; ok {
		return k, true
	}
	switch {
	case hasAnySuffix(code, "methodnotfound", "commandnotfound", "routenotfound", "endpointnotfound", "operationnotfound", "toolnotfound"):
		return kUnsupported, true
	case code == "notfound":
		return kNotFound, !strongOnly
	case len(code) > len("notfound") && hasAnySuffix(code, "notfound", "doesnotexist"),
		len(code) > len("nosuch") && hasAnyPrefix(code, "nosuch"):
		return kNotFound, true
	}
	// Service-prefixed variants: KMSAccessDenied, EC2ThrottledException,
	// RequestLimitExceeded, TableAlreadyExists.
	for _, s := range vendorSuffixes {
		if len(code) > len(s.suffix) && hasAnySuffix(code, s.suffix) {
			return s.kind, true
		}
	}
	return kNone, false
}

var vendorSuffixes = []struct {
	suffix string
	kind   kind
}{
	{"accessdenied", kPermission}, {"permissiondenied", kPermission}, {"throttling", kRateLimit},
	{"throttled", kRateLimit}, {"ratelimited", kRateLimit}, {"ratelimitexceeded", kRateLimit},
	{"alreadyexists", kExists}, {"tokenexpired", kAuth}, {"expiredtoken", kAuth},
	{"invalidparameter", kInvalid}, {"invalidparametervalue", kInvalid}, {"validation", kInvalid},
}

// exceptionTypes are exception and error classes of language runtimes and
// common client libraries (Python, Node, Java, .NET, Go, Ruby, Rust).
var exceptionTypes = map[string]kind{
	// Timeouts.
	"timeout": kTimeout, "readtimeout": kTimeout, "connecttimeout": kTimeout,
	"writetimeout": kTimeout, "pooltimeout": kTimeout, "sockettimeout": kTimeout,
	"httptimeout": kTimeout, "httpconnecttimeout": kTimeout, "servertimeout": kTimeout,
	"deadlineexceeded": kTimeout, "errdeadlineexceeded": kTimeout, "timedout": kTimeout,
	"querytimeout": kTimeout, "serverselectiontimeout": kTimeout, "networktimeout": kTimeout,
	"opentimeout": kTimeout, "esockettimedout": kTimeout, "taskcanceled": kTimeout,
	"waittimeout": kTimeout, "timeoutexpired": kTimeout,

	// Cancellation and broken connections.
	"canceled": kNetwork, "wouldblock": kNetwork, "interrupted": kNetwork, "cancelled": kNetwork,
	"operationcanceled": kNetwork, "abort": kNetwork, "connection": kNetwork,
	"connectionreset": kNetwork, "connectionaborted": kNetwork, "connectionclosed": kNetwork,
	"brokenpipe": kNetwork, "remoteprotocol": kNetwork, "network": kNetwork, "read": kNetwork,
	"write": kNetwork, "chunkedencoding": kNetwork, "serverdisconnected": kNetwork,
	"clientos": kNetwork, "incompleteread": kNetwork, "remotedisconnected": kNetwork,
	"eof": kNetwork, "unexpectedeof": kNetwork, "errunexpectedeof": kNetwork, "maxretry": kNetwork,
	"connectionfailure": kNetwork, "autoreconnect": kNetwork,
	"clientpayload": kNetwork, "connectionclosedunexpectedly": kNetwork, "econnreset": kNetwork,

	// Never connected.
	"connectionrefused": kRefused, "connectionfailed": kRefused, "connect": kRefused,
	"newconnection": kRefused, "clientconnector": kRefused, "apiconnection": kNetwork,
	"noroutetohost": kRefused, "cannotgetjdbcconnection": kRefused, "econnrefused": kRefused,
	"gai": kDNS, "unknownhost": kDNS, "nameresolution": kDNS, "dns": kDNS, "enotfound": kDNS,

	// The service failed.
	"internalserver": kServer, "httpserver": kServer, "memory": kServer, "outofmemory": kServer,
	"retry": kServer, "retryable": kServer, "resourceaccess": kServer,
	"transientdataaccess": kServer, "badgateway": kServer, "gatewaytimeout": kTimeout,
	"serviceunavailable": kUnavailable, "notprimary": kUnavailable, "notmaster": kUnavailable,
	"busyloading": kUnavailable, "tryagain": kUnavailable, "clusterdown": kUnavailable,
	"overloaded": kOverloaded, "ratelimit": kRateLimit, "toomanyrequests": kRateLimit,
	"resourceexhausted": kRateLimit, "throttling": kRateLimit, "optimisticlock": kContention,
	"optimisticlocking": kContention, "cannotacquirelock": kContention,
	"deadlockloserdataaccess": kContention, "pessimisticlocking": kContention,
	"deadlockdetected": kContention, "serializationfailure": kContention,
	"locknotavailable": kContention, "writeconflict": kContention, "querycanceled": kTimeout,
	"adminshutdown": kUnavailable, "toomanyconnections": kOverloaded, "aborted": kContention,
	"staleobjectstate": kContention, "objectoptimisticlockingfailure": kContention,

	// Permission and authentication.
	"permission": kPermission, "permissiondenied": kPermission, "accessdenied": kPermission,
	"security": kPermission, "unauthorizedaccess": kPermission, "errpermission": kPermission,
	"forbidden": kPermission, "insufficientprivilege": kPermission, "nopermission": kPermission,
	"eacces": kPermission, "eperm": kPermission, "authorization": kPermission,
	"accessdeniedhandler": kPermission, "authentication": kAuth, "unauthenticated": kAuth,
	"unauthorized": kAuth, "badcredentials": kAuth, "credentialsexpired": kAuth,
	"insufficientauthentication": kAuth, "nocredentials": kAuth, "partialcredentials": kAuth,
	"invalidpassword": kAuth, "invalidauthorizationspecification": kAuth, "notauthenticated": kAuth,
	"authenticationfailed": kAuth, "auth": kAuth, "expiredtoken": kAuth,
	"credentialretrieval": kAuth, "tokenretrieval": kAuth, "ssotokenload": kAuth,
	"unauthorizedssotoken": kAuth, "invalidtoken": kAuth, "tokenexpired": kAuth,
	"jwtexpired": kAuth, "expiredjwt": kAuth, "credentialsnotfound": kAuth,
	"defaultcredentials": kAuth, "refresh": kAuth,

	// Missing things.
	"filenotfound": kNotFound, "nosuchfile": kNotFound, "notfound": kNotFound,
	"errnotexist": kNotFound, "keynotfound": kNotFound, "directorynotfound": kNotFound,
	"entitynotfound": kNotFound, "recordnotfound": kNotFound, "doesnotexist": kNotFound,
	"objectdoesnotexist": kNotFound, "nosuchelement": kNotFound, "emptyresultdataaccess": kNotFound,
	"resourcenotfound": kNotFound, "undefinedtable": kNotFound, "undefinedcolumn": kNotFound,
	"undefinedfunction": kNotFound, "undefinedobject": kNotFound, "invalidcatalogname": kNotFound,
	"invalidschemaname": kNotFound, "nosuchkey": kNotFound, "nosuchbucket": kNotFound,
	"enoent": kNotFound,

	// Bad input.
	"value": kInvalid, "key": kInvalid, "index": kInvalid, "illegalargument": kInvalid,
	"numberformat": kInvalid, "datetimeparse": kInvalid, "constraintviolation": kInvalid,
	"methodargumentnotvalid": kInvalid, "argument": kInvalid, "argumentnull": kInvalid,
	"argumentoutofrange": kInvalid, "format": kInvalid, "validation": kInvalid,
	"unicodedecode": kInvalid, "unicodeencode": kInvalid, "unicode": kInvalid,
	"zerodivision": kInvalid, "range": kInvalid, "zod": kInvalid, "paramvalidation": kInvalid,
	"invalidurl": kInvalid, "missingschema": kInvalid, "invalidschema": kInvalid,
	"invalidheader": kInvalid, "uniqueviolation": kExists, "foreignkeyviolation": kInvalid,
	"notnullviolation": kInvalid, "checkviolation": kInvalid, "integrity": kInvalid,
	"dataintegrityviolation": kInvalid, "duplicatekey": kExists,
	"invalidtextrepresentation": kInvalid, "numericvalueoutofrange": kInvalid,
	"fileexists": kExists, "filealreadyexists": kExists, "isadirectory": kInvalid,
	"notadirectory": kInvalid, "badrequest": kInvalid, "invalidargument": kInvalid,
	"unprocessableentity": kInvalid, "conflict": kExists, "alreadyexists": kExists,
	"failedprecondition": kInvalid, "outofrange": kInvalid, "recordinvalid": kInvalid,
	"invalidparameter": kInvalid, "invalidinput": kInvalid, "invaliddata": kInvalid,
	"jsonparse": kInvalid, "typemismatch": kInvalid, "strconvnumerror": kInvalid,
	"payloadtoolarge": kTooLarge, "requestentitytoolarge": kTooLarge,
	"maxuploadsizeexceeded": kTooLarge, "contextwindowexceeded": kTooLarge,

	// Not supported.
	"notimplemented": kUnsupported, "unsupportedoperation": kUnsupported,
	"notsupported": kUnsupported, "errunsupported": kUnsupported,
	"methodnotimplemented": kUnsupported, "unimplemented": kUnsupported,
	"modulenotfound": kUnsupported, "import": kUnsupported, "unsupported": kUnsupported,
	"operationnotsupported": kUnsupported, "platformnotsupported": kUnsupported,
	"methodnotallowed": kUnsupported, "unknowncommand": kUnsupported,
	"httpmediatypenotsupported": kUnsupported, "httprequestmethodnotsupported": kUnsupported,
}

// genericTypes say only that some I/O or transport failed. They are
// consulted after the message, which usually says more.
var genericTypes = map[string]kind{
	"urlerror": kNetwork, "neturlerror": kNetwork, "netoperror": kNetwork, "netdnserror": kDNS,
	"io": kNetwork, "ioexception": kNetwork, "httprequest": kNetwork, "request": kNetwork,
	"operational": kNetwork, "interface": kNetwork, "socket": kNetwork, "fetch": kNetwork,
	"inactiverpc": kNetwork, "rpc": kNetwork, "transport": kNetwork, "httpx": kNetwork,
	"requestexception": kNetwork, "webexception": kNetwork, "sslerror": kNetwork, "ssl": kNetwork,
	"tls": kNetwork, "certificateverification": kNetwork, "syscall": kNetwork, "opfailed": kNetwork,
	// A protocol's own exception (urllib3's ProtocolError for a dropped
	// connection, an ETP or SOAP ProtocolException that carries the
	// server's error code) is read from its message first.
	"protocol": kNetwork,
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if len(s) >= len(x) && s[len(s)-len(x):] == x {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, x := range prefixes {
		if len(s) >= len(x) && s[:len(x)] == x {
			return true
		}
	}
	return false
}
