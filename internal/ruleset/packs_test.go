package ruleset_test

import (
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// The pack families read what they are written for, and leave alone the
// errors that only resemble them: each case names the outcome and, for a
// pack decision, the rule family (a prefix of the rule's name).
func TestPackFamilies(t *testing.T) {
	t.Parallel()
	status := func(n int32) *int32 { return &n }
	cases := []struct {
		msg    string
		http   *int32
		class  classify.Class
		code   string
		family string // "" when a generic baseline rule must decide
	}{
		// A server failure that says nothing more, in several languages,
		// and not when a 4xx says what it is.
		{msg: "Beklenmeyen bir hata oluştu", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "server-errors."},
		{msg: "Interner Fehler bei der Verarbeitung", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "server-errors."},
		{msg: "数据库错误", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "server-errors."},
		// ... unless the baseline finds a defect in it, which outranks
		// every pack: the generic rules keep no list of their own.
		{msg: "Systemfehler: Der Objektverweis wurde nicht auf eine Objektinstanz festgelegt.", class: classify.Capability, code: classify.CodeInternalError},
		{msg: "System error: Traceback (most recent call last):\n  File \"app.py\", line 3, in run\nKeyError: 'city'", class: classify.Capability, code: classify.CodeInternalError},
		{msg: "系统错误: java.lang.NullPointerException at OrderService.java:88", class: classify.Capability, code: classify.CodeInternalError},
		{msg: "No se pudo conectar con el servicio de pagos", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "server-errors."},
		{msg: "system error", http: status(403), class: classify.Governance, code: classify.CodePermissionDenied},
		// Certificates, as localised runtimes word them.
		{msg: "Das Zertifikat von »repo.example.org« kann nicht überprüft werden", class: classify.Governance, code: classify.CodeUserActionRequired, family: "tls."},
		{msg: "La conexión subyacente se cerró: No se pudo establecer una relación de confianza para el canal seguro SSL/TLS.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "tls."},
		{msg: "invalid peer certificate: UnknownIssuer", class: classify.Governance, code: classify.CodeUserActionRequired, family: "tls."},
		// Tools and routes the system does not have.
		{msg: "weather_lookup is not a valid tool, try one of [search, calc]", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported."},
		{msg: "could not find driver", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported."},
		{msg: `Méthode « DELETE » non autorisée.`, class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported."},
		// Bad input that says "not found".
		{msg: `Cannot query field "colour" on type "Car".`, class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid."},
		{msg: "old_string not found in file: the text must match exactly", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid."},
		{msg: `Cast to ObjectId failed for value "42x" at path "_id"`, class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid."},
		// Memory that one request can never have, and memory the server lacks now.
		{msg: "Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes)", class: classify.Capability, code: classify.CodeInvalidInput, family: "families.permanent-limit"},
		{msg: "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory", class: classify.Capability, code: classify.CodeInvalidInput, family: "families.permanent-limit"},
		// Locks and pages that change under the caller heal by themselves.
		{msg: "The process cannot access the file because it is being used by another process.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient."},
		{msg: "StaleElementReferenceException: stale element reference: element is not attached to the page document", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient."},
		// Platform policies and git without a way to ask for credentials.
		{msg: `admission webhook "policy.example.io" denied the request: images must come from the internal registry`, class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-"},
		{msg: "The site's robots.txt (https://example.org/robots.txt) specifies that autonomous fetching of this page is not allowed", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-"},
		{msg: "MCP error -32602: Tool export_all disabled", class: classify.Governance, code: classify.CodePolicyBlocked, family: "agents."},
		{msg: "fatal: could not read Password for 'https://git.example.com': No such device or address", class: classify.Governance, code: classify.CodeAuthRequired, family: "devtools."},
		// Clusters between states, and ledgers refusing a transaction as sent.
		{msg: "produce failed: NOT_LEADER_OR_FOLLOWER for partition events-3", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "clusters."},
		{msg: "Cannot create directory /data/in. Name node is in safe mode.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "clusters."},
		{msg: "JDBC connection pool ORDERS is exhausted (max 20)", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "clusters."},
		{msg: "replacement transaction underpriced", class: classify.Capability, code: classify.CodeInvalidInput, family: "clusters."},
		{msg: "insufficient funds for gas * price + value: have 10 want 2000", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families."},
		{msg: "Error: balance is not sufficient to send 5 TRX", class: classify.Governance, code: classify.CodeUserActionRequired, family: "clusters."},
		{msg: "error: wallet is locked; unlock it to sign", class: classify.Governance, code: classify.CodeAuthRequired, family: "clusters."},
		// Build tools: integrity, missing tools, requirements.
		{msg: "error: sha256 mismatch for downloaded archive libfoo-1.2.tar.gz", class: classify.Governance, code: classify.CodePolicyBlocked, family: "buildtools."},
		{msg: "Meson 1.3.0 or newer is required by this project", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools."},
		{msg: "Package cairo was not found in the pkg-config search path.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools."},
		// An installed toolchain older than the project declares, in several ecosystems' words;
		// an amount below a minimum is not a version.
		{msg: "meson.build:1:0: ERROR: Meson version is 0.61.2 but project requires >= 1.1.0", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools."},
		{msg: "error: package 'kit' is using Swift tools version 5.10.0 but the installed version is 5.9.0", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools."},
		{msg: "Error: Requires Babel \"^7.22.0\", but was loaded with \"7.12.3\".", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools."},
		{msg: "N/A: version \"v22.3.0 -> N/A\" is not yet installed.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools."},
		{msg: "Unable to create app: The system python3 is version 3.8, but Briefcase requires 3.9 or later.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools."},
		{msg: "The amount is lower than the minimum", class: classify.Capability, code: classify.CodeInvalidInput},
		// A firewall's page in Chinese speaks of illegal parameters; the block is what it is.
		{msg: "您的请求带有不合法参数，已被网站管理员设置拦截！", class: classify.Governance, code: classify.CodePolicyBlocked},
		{msg: "拒绝访问\n您的请求已被我们的安全规则阻止。", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked},
		// A block page outranks the packs' reading of its words (access
		// refused, illegal parameters), whatever the product's wording;
		// the same words without a block are the packs' to read.
		{msg: "<p>您的请求带有不合法参数，已被系统设置拦截！</p>", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked},
		{msg: "<h1>アクセスが拒否されました</h1><p>お客様のリクエストは、Webアプリケーションファイアウォールにより遮断されました。</p>", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked},
		{msg: "접근이 거부되었습니다. 방화벽 정책에 의해 요청이 차단되었습니다.", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked},
		{msg: "拒绝访问：防火墙拦截了该请求", class: classify.Governance, code: classify.CodePolicyBlocked},
		{msg: "Доступ запрещён. Ваш запрос был заблокирован системой защиты сайта.", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked},
		{msg: "Acceso denegado: su petición ha sido bloqueada por el WAF.", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked},
		// A runtime's report of a bug outranks the packs' reading of the
		// words its trace quotes (an undefined method read as an
		// unsupported operation); the same words without it are the packs'.
		{msg: "{\"error\":\"This path is disallowed by the site's robots.txt for this user agent\"}", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-"},
		{msg: "remote: Branch `main` changes rejected by rule `main`=>branch.push.\nTo https://git.example.com/shop\n ! [remote rejected] main -> main\nerror: failed to push some refs", class: classify.Governance, code: classify.CodePolicyBlocked, family: "devtools.git-protected-branch"},
		// What could not be found when a connection failed is not a missing item.
		{msg: "Verbindungsfehler: Zielport nicht gefunden – der Server ist nicht gestartet oder nicht erreichbar.", class: classify.Reliability, code: classify.CodeRetryableTransient},
		{msg: "pakiet.rpm: suma kontrolna MD5 się nie zgadza", class: classify.Governance, code: classify.CodePolicyBlocked, family: "buildtools.integrity"},
		{msg: "Erreur : la somme de contrôle ne correspond pas", class: classify.Governance, code: classify.CodePolicyBlocked, family: "buildtools.integrity"},
		{msg: "[ERROR]: Failed to validate checksum for archive: base.txz", class: classify.Governance, code: classify.CodePolicyBlocked, family: "buildtools.integrity"},
		{msg: "error: failed to install ripgrep@14.1.0: checksum error, expected: 3c9f0a77e1b2, got: 51d0c2e9f8a4", class: classify.Governance, code: classify.CodePolicyBlocked, family: "buildtools.integrity"},
		{msg: "fetch: expected sha256 0f3d2a9c8b7e6f5a4d3c2b1a09f8e7d6, got 7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d", class: classify.Governance, code: classify.CodePolicyBlocked, family: "buildtools.integrity"},
		{msg: "urn:ietf:params:acme:error:badNonce: JWS has an invalid anti-replay nonce", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.conflict-retry-stale"},
		{msg: "transaction rejected: BadNonce (expected 14, actual 12)", http: status(400), class: classify.Capability, code: classify.CodeInvalidInput},
		{msg: "ERR unknown command 'TS.ADD', with args beginning with: 'temp:1'", class: classify.Capability, code: classify.CodeCapabilityUnsupported},
		{msg: "ms.channel.timeOut", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.press-button"},
		{msg: "Zugriff verweigert. Versuchen Sie es später noch einmal.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-eu"},
		{msg: "FATAL Database error 3D000: database \"sales\" does not exist", class: classify.Capability, code: classify.CodeResourceNotFound},
		{msg: "remote: FATAL: W refs/heads/main infra/deploy bob DENIED by refs/heads/main", class: classify.Governance, code: classify.CodePolicyBlocked, family: "devtools.git-protected-branch"},
		{msg: "ERROR: Could not find a version that satisfies the requirement flask<2,>=2.3 (from -r requirements.txt (line 2))", class: classify.Capability, code: classify.CodeInvalidInput, family: "buildtools.unsatisfiable"},
		{msg: "error: No solution found:\n  Conflicting constraints:\n    root -> lib@>=2.0", class: classify.Capability, code: classify.CodeInvalidInput, family: "buildtools.unsatisfiable"},
		// No longer pending is not pending yet; "not ready" with 401 is a refusal.
		{msg: "This runner job is not in pending state", http: status(400), class: classify.Capability, code: classify.CodeInvalidInput},
		{msg: "The export is not ready yet", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.not-ready-yet"},
		{msg: "NoMethodError: undefined method `each' for nil:NilClass", class: classify.Capability, code: classify.CodeInternalError},
		{msg: "Unhandled exception. System.NullReferenceException: 개체 참조가 개체의 인스턴스로 설정되지 않았습니다.", class: classify.Capability, code: classify.CodeInternalError},
		{msg: "視聴できません: この動画はお住まいの地域からは視聴できません", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.region-restricted"},
		{msg: "此內容因版權限制，在您所在的地區無法提供", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.region-restricted"},
		{msg: "参数错误：缺少必要参数 user_id", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.invalid-input-zh"},
		{msg: "防火墙规则配置失败：没有权限", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-zh-ja-ko"},
		{msg: "拒绝访问：没有操作权限", http: status(403), class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl."},
		{msg: "参数不合法：page_size 必须大于 0", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl."},
		// A generated server's own words for parameters that do not decode,
		// whatever status it sends them under.
		{msg: "operation GetAccount: decode params: path: \"account_id\": can't decode address", http: status(500), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.generated-server-decode"},
		{msg: "Échec de la connexion de l'utilisateur 'etl'.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-eu2"},
		{msg: "An error occurred while downloading the update. Please try again later. A network error occurred: not found (404)", class: classify.Capability, code: classify.CodeResourceNotFound},
		{msg: "An error occurred while extracting the archive. Please try again later. The update is improperly signed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "buildtools.integrity"},
		{msg: "सर्भर व्यस्त छ, कृपया केही समयपछि पुनः प्रयास गर्नुहोस्।", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south"},
		{msg: "Samahani, huduma haipatikani kwa sasa. Tafadhali jaribu tena baadaye.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south"},
		{msg: "PreArm: Compass not calibrated", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.checks-failed"},
		{msg: "Arming disabled flags: RXLOSS THROTTLE", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.checks-failed"},
		{msg: "Printer error 0x21: out of paper", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.checks-failed"},
		{msg: "Грешка 32: Няма хартия в принтера", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.checks-failed"},
		{msg: "Failed: number 919800000000 is registered in NDNC registry", http: status(400), class: classify.Governance, code: classify.CodePolicyBlocked, family: "messaging.sms-do-not-disturb"},
		{msg: "{\"status\":\"error\",\"message\":\"Sender ID ACMEPK is not registered for this account\"}", class: classify.Governance, code: classify.CodeUserActionRequired, family: "messaging.sms-sender-id"},
		{msg: "Сървърът на фискалното устройство не отговаря. Опитайте по-късно.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-bg-uk-sr"},
		{msg: "Сервер не відповідає, спробуйте пізніше", http: status(502), class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-bg-uk-sr"},
		{msg: "error:9 (G-code locked out during alarm or jog state) ALARM LOCK", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.checks-failed"},
		{msg: "Authentification forte requise : validez l'opération dans l'application de votre banque.", http: status(401), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.sca-terms"},
		{msg: "Debe aceptar los términos y condiciones antes de descargar el archivo.", http: status(403), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.sca-terms"},
		{msg: "ทำรายการไม่สำเร็จ: ยอดเงินไม่เพียงพอ", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.balance-ar"},
		{msg: "Nelze dokončit: byl překročen denní limit dotazů.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.balance-eu3"},
		{msg: "आपका सत्र समाप्त हो गया है, फिर से लॉगिन करें", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.session-expired-ru-vi-id-ar"},
		{msg: "Palvelu on tilapäisesti poissa käytöstä. Yritä myöhemmin uudelleen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "Tjänsten är tillfälligt otillgänglig, försök igen senare.", http: status(500), class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "Failed to open serial port: /dev/ttyACM1 is already in use by another process", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.serial-port-in-use"},
		{msg: "Cannot start playback: the ASIO device 'UMC204HD' is in use by another application", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.audio-device-in-use"},
		{msg: "Du har ikke tillatelse til å slette denne filen.", http: status(400), class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-north"},
		{msg: "Tjenesten begrenser forespørsler akkurat nå.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.rate-limit-nordic"},
		{msg: "Opplastingen feilet: lagringskvoten for kontoen er brukt opp.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.storage-full-eu"},
		{msg: "De koppeling is verlopen. Autoriseer de app opnieuw in de instellingen.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.session-expired-eu"},
		{msg: "No se pudo enviar: el número está en la lista negra del operador.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.blocklist"},
		{msg: "Licenze insufficienti per aggiungere un nuovo utente.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.balance-eu3"},
		{msg: "{\"code\":503,\"error\":\"This workspace is suspended. Please contact support.\"}", http: status(503), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.disabled-contact-support"},
		// Written after the ninth fresh batch of 2026-12-04.
		{msg: "Müsait kurye bulunamadı. Lütfen birazdan tekrar deneyin.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-tr"},
		{msg: "ไม่สามารถเชื่อมต่อเซิร์ฟเวอร์ได้ กรุณาลองใหม่", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south2"},
		{msg: "Mfumo una shughuli nyingi. Jaribu tena baada ya dakika tano.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south2"},
		{msg: "ክፍያው ለጊዜው ሊከናወን አልቻለም", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south2"},
		{msg: "Fehler 200: Keine Lizenz verfügbar für das Produkt 1001.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.balance-eu3"},
		{msg: "Langganan Anda telah berakhir. Perpanjang langganan untuk melanjutkan.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.balance-ru-vi-id"},
		{msg: "Bu ödeme yöntemi desteklenmemektedir.", http: status(400), class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.unsupported-ru-vi-id-ar"},
		{msg: "Vous n'avez pas les droits pour supprimer ce dossier.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-eu"},
		{msg: "Sorry, we do not operate in your city yet.", http: status(400), class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "La dirección de entrega está fuera del área de cobertura.", http: status(422), class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "O CEP informado está fora da área de entrega.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "The appointment slot you selected is already booked.", http: status(409), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "Ce créneau n'est plus disponible, veuillez en choisir un autre.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "Import failed: your workspace exceeds the limit of 500 records on the Free plan. Upgrade to continue.", class: classify.Governance, code: classify.CodeUserActionRequired},
		{msg: "Tracker 8841 has not reported for 2 days; commands are queued until the unit comes online.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		// Written after the tenth fresh batch of 2026-12-04.
		{msg: "De export loopt nog. Probeer het over een paar minuten opnieuw.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "現在はサービス時間外です。8:00以降に再度お試しください。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		// A wait said as "try after some time".
		{msg: "Could not reach the registry at the moment. Please try after some time.", http: status(400), class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.not-ready-yet-busy"},
		{msg: "The one-time code has expired. Please regenerate the OTP and try after some time.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.one-time-code-expired"},
		// A person's step, not a wait: a device to put on its charger, a
		// program to install or start, a payment to make, a prompt the
		// person did not answer.
		{msg: "Update paused: the earbuds' battery is below 30%. Place them in the charging case and try again.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-step"},
		{msg: "Не удалось подключиться к агенту. Установите или запустите программу подписи.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.install-or-start-program"},
		{msg: "Registration fee is pending. Complete payment from your account wallet to continue.", class: classify.Governance, code: classify.CodeUserActionRequired},
		{msg: "Payment failed: the customer did not enter the PIN in time.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.person-did-not-answer"},
		// A booking's words that sound like a wait: a slot no longer
		// available, a session sold out, a profile under review.
		{msg: "El turno seleccionado ya no está disponible.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "Not enough capacity for this class: 0 places left.", http: status(409), class: classify.Capability, code: classify.CodeInvalidInput},
		{msg: "Ihr Konto wurde vorübergehend gesperrt und wird von unserem Support überprüft.", class: classify.Governance, code: classify.CodePolicyBlocked},
		// Waits, sign-ins and rights in languages with few cases.
		{msg: "Teenus on ajutiselt kättesaamatu.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-baltic"},
		{msg: "Lūdzu, mēģiniet vēlāk.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-baltic"},
		{msg: "Sesija je potekla. Prijavite se znova.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-more"},
		{msg: "Jums nav tiesību skatīt šo dokumentu.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-more-2"},
		// A place the service does not serve, in more words and languages.
		{msg: "Delivery address is not serviceable", http: status(422), class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-2"},
		{msg: "We don't currently deliver to this postcode.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-2"},
		{msg: "该地址不在配送范围内", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-2"},
		{msg: "Adressen dekkes ikke av noen av våre ruter.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-2"},
		// A slot already booked, in Danish and Swedish.
		{msg: "Mødelokalet er allerede booket kl. 10-12.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "Tiden är redan bokad av en annan kund.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		// An instrument that needs a hand on it.
		{msg: "Measurement aborted: safety interlock is open.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-step"},
		{msg: "Wash buffer bottle is empty. Refill it and restart the run.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-step"},
		{msg: "试剂余量不足，请更换后重新开始。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-step"},
		{msg: "サンプル室の扉が開いています。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-step"},
		// Copyright or a closure period keeps a work from being served.
		{msg: "This item is protected by copyright and can be viewed in the reading room only.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.rights-restricted"},
		{msg: "Das Digitalisat ist urheberrechtlich geschützt.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.rights-restricted"},
		{msg: "Dzieło chronione prawem autorskim.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.rights-restricted"},
		// An address allow list, in Korean, Chinese and German.
		{msg: "허용되지 않은 IP에서 호출했습니다.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.allow-list"},
		{msg: "请求IP不在白名单内", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.allow-list"},
		{msg: "Die IP-Adresse 10.1.2.3 ist nicht freigegeben.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.allow-list"},
		// A parameter's range in Chinese is the call's to fix.
		{msg: "pageSize 参数的最大值为 500", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.invalid-input-zh"},
		// A credential's ID or a licence that cannot be found is not a
		// missing item: the not-found rule stands aside.
		{msg: "AppKey 不存在", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-zh2"},
		// The veto for a time the caller chose ("requested") is the service
		// hours' alone: a pool of licences in use is still a wait.
		{msg: "All licenses are currently in use; the requested export could not start.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.check-back"},
		{msg: "Der Datensatz wird gerade von Benutzer „kmeier“ bearbeitet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "Zahlung abgelehnt: Betrugsverdacht.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.card-fraud"},
		{msg: "Sorry, that address is outside of this store's delivery area.", http: status(422), class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		// A generic "unexpected error" that names a defect is the defect.
		{msg: "Unerwarteter Fehler: NullReferenceException in OrderViewModel.", class: classify.Capability, code: classify.CodeInternalError},
		{msg: "システムエラーが発生しました。(NullPointerException)", class: classify.Capability, code: classify.CodeInternalError},
		{msg: "Objectverwijzing is niet op een exemplaar van een object ingesteld.", http: status(500), class: classify.Capability, code: classify.CodeInternalError},
		{msg: "Embargo release date must be a future date", http: status(422), class: classify.Capability, code: classify.CodeInvalidInput},
		// Written after the eleventh fresh batch of 2026-12-04.
		{msg: "Please connect your camera with a USB cable to import RAW files.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.connect-device"},
		{msg: "カメラが見つかりません。USBケーブルでカメラを接続してください。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.connect-device"},
		{msg: "Could not open the output device: it is used in exclusive mode by another application.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.audio-device-in-use"},
		{msg: "The library \"Family\" is already open in another instance of PhotoDesk.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.open-in-another-instance"},
		// Written after the twelfth fresh batch of 2026-12-04.
		{msg: "Auftrag 88 kann nicht starten: Linie 3 ist durch Auftrag 87 belegt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "Die Zeichnung ist von Benutzer „lkrause“ ausgecheckt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "Applicant has not yet completed the consent form.", class: classify.Governance, code: classify.CodeUserActionRequired},
		{msg: "上报失败：API Key 无效或已被删除", http: status(401), class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-zh2"},
		{msg: "Vous n'avez pas le droit de supprimer cette facture.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-eu"},
		// Written after the thirteenth fresh batch of 2026-12-04.
		{msg: "The host has disabled account 981; please reach out to the host's support team.", http: status(503), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.disabled-contact-support"},
		{msg: "ご指定の時間は営業時間外のため予約できません。", class: classify.Capability, code: classify.CodeInvalidInput},
		{msg: "사용자가 많아 접속이 원활하지 않습니다. 잠시만 기다려 주세요.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-ko"},
		{msg: "The article is locked by user \"jdoe\".", class: classify.Reliability, code: classify.CodeRetryableTransient},
		{msg: "Kommunikationsfehler mit dem Buchungssystem.", http: status(200), class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "Sie sind in der Warteschlange. Geschätzte Wartezeit: 3 Minuten.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "Isteklo je vrijeme čekanja na odgovor poslužitelja.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "Quota journalier atteint. Il sera réinitialisé à minuit.", http: status(403), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.daily-limit"},
		{msg: "Too many OTP attempts. Please request a new one.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.wrong-pin"},
		// A lock-out of the account that says when it ends is a wait.
		{msg: "Too many attempts for this account, try again in 15 minutes", http: status(429), class: classify.Reliability, code: classify.CodeRetryableTransient},
		{msg: "Layer 1 [ 3:B.ipt/ipt          0.004] Connect failed with error 22", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "devices.knxnet-ip-unsupported"},
		{msg: "Layer 1 [ 3:B.ipt/ipt          0.004] Connect failed with error 25", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.knxnet-ip-no-address"},
		{msg: ">ATSP0\nSEARCHING...\nUNABLE TO CONNECT", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.obd-no-vehicle"},
		{msg: "조직 보안 정책에 따라 외부 수신자에게 문서를 공유할 수 없습니다.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.org-policy"},
		{msg: "A política da organização não permite enviar documentos para fora do domínio.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.org-policy"},
		// A forge's branch rules, however it words them.
		{msg: " ! [remote rejected] main -> main (Cannot force-push to a protected branch)\nerror: failed to push some refs to 'https://git.example.org/x.git'", class: classify.Governance, code: classify.CodePolicyBlocked, family: "devtools.git-protected-branch"},
		{msg: "remote: Required status check \"ci/test\" is expected.\n ! [remote rejected] main -> main (Required status check \"ci/test\" is expected.)", class: classify.Governance, code: classify.CodePolicyBlocked, family: "devtools.git-protected-branch"},
		// A request signature that does not verify: the signing secret is wrong.
		{msg: "{\"success\":false,\"errorMessage\":\"Invalid hash signature.\"}", class: classify.Governance, code: classify.CodeAuthRequired, family: "access.bad-signature"},
		{msg: "FATAL:  no pg_hba.conf entry for host \"10.0.0.7\", user \"app\", database \"orders\", no encryption", class: classify.Governance, code: classify.CodePolicyBlocked, family: "access.network-rule"},
		{msg: "ERROR 1130 (HY000): Host '10.1.2.3' is not allowed to connect to this MySQL server", class: classify.Governance, code: classify.CodePolicyBlocked, family: "access.network-rule"},
		{msg: "Client with IP address '198.51.100.4' is not allowed to access the server. To enable access, use the Azure Management Portal or run sp_set_firewall_rule.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "access.network-rule"},
		{msg: "Request signature validation error", class: classify.Governance, code: classify.CodeAuthRequired, family: "access.bad-signature"},
		{msg: "التوقيع غير صالح", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-"},
		{msg: "Μη έγκυρη ψηφιακή υπογραφή. Ελέγξτε το κλειδί.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-"},
		// Not available for the moment is a wait; not available in your
		// area is where the service does not go.
		{msg: "El servicio no está disponible en este momento", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-eu3"},
		{msg: "Draft order is not ready to be confirmed", http: status(422), class: classify.Capability, code: classify.CodeInvalidInput},
		// A node that has not caught up with its peers serves once it has.
		{msg: "API call rejected because chain is not done bootstrapping", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families."},
		{msg: "Wallet needs to be fully synced before sending transactions", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families."},
		{msg: "ERROR: ResolutionImpossible: for help visit the dependency resolution docs", class: classify.Capability, code: classify.CodeInvalidInput, family: "buildtools."},
		// Devices and payments.
		{msg: "Command failed: kitchen sensor appears to be offline", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices."},
		{msg: "Press the link button on the bridge, then try pairing again", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices."},
		{msg: "Transaction is pending", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices."},
		{msg: "Transaction pending approval by the account holder", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families."},
		{msg: "Incorrect MPIN entered", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices."},
		// Written after the batch of 2026-12-05.
		{msg: "受付時間外です。9時以降に再度お試しください。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "入札受付時間外のため受け付けできません（受渡日: 2027-01-04）", class: classify.Capability, code: classify.CodeInvalidInput},
		{msg: "Mobile money request timed out: you did not enter your PIN on the phone.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.person-did-not-answer"},
		{msg: "访问过于频繁，请先完成滑块验证", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.bot-check"},
		{msg: "访问过于频繁，请稍后再试", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.rate-limit"},
		{msg: "সার্ভারে সমস্যা হয়েছে, কিছুক্ষণ পর চেষ্টা করুন", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south2"},
		{msg: "Die Überweisung ist noch in Bearbeitung.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.payment-pending-intl"},
		{msg: "Le paiement est encore en cours de traitement, réessayez dans une minute.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.payment-pending-intl"},
		{msg: "Shipping to this country is not supported yet.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported."},
		{msg: "Selling is not supported in your country.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.region-restricted"},
		{msg: "Offer not found or no longer available", class: classify.Capability, code: classify.CodeResourceNotFound},
		{msg: "This endpoint is no longer available; use v3.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.not-supported"},
		// Written after the second batch of 2026-12-05.
		{msg: "Could not reach the thermostat. Please make sure it is switched on.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.switch-on"},
		{msg: "未找到手环，请确认手环已开机并靠近手机", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.switch-on"},
		{msg: "You must accept the Data Use Policy v2.1 before downloading.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.accept-terms-first"},
		{msg: "The licence agreement has not been accepted for this workspace.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families."},
		{msg: "Үйлчилгээ түр ажиллахгүй байна. Дараа дахин оролдоно уу.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-caucasus-central-asia"},
		{msg: "Xidmət müvəqqəti olaraq əlçatan deyil. Bir az sonra yenidən cəhd edin.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-caucasus-central-asia"},
		{msg: "Sessiyanın müddəti bitib. Yenidən daxil olun.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.session-expired-more"},
		{msg: "The kitchen is closed right now. It opens at 11:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Dropoff is outside Lalamove delivery zones", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-3"},
		{msg: "Dirección no disponible para envíos", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-3"},
		// Written after the third batch of 2026-12-05.
		{msg: "arecord: main:830: audio open error: ALSA device hw:1,0: Device or resource busy", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.audio-device-in-use"},
		{msg: "Water tank is empty. Please refill it and start again.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill"},
		{msg: "La borne de recharge est hors ligne pour le moment.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "Die Ladesäule ist derzeit nicht erreichbar.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "Du må være logget inn for å lagre søket.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-nordic-slavic"},
		{msg: "Грешно потребителско име или парола", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-nordic-slavic"},
		{msg: "Nemáte oprávnění upravovat tento předmět.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-more"},
		{msg: "Dokumentet er låst av en annen bruker.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		// Written after the fourth batch of 2026-12-05.
		{msg: "Le document est verrouillé par un autre utilisateur.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "Sustav je trenutno nedostupan zbog velikog opterećenja.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south-slavic"},
		{msg: "אנא אשר שאינך רובוט", http: status(403), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.bot-check"},
		{msg: "Za nastavak se morate prijaviti.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-nordic-slavic"},
		{msg: "海外からはご利用いただけません。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.region-and-rights-cjk-eu"},
		{msg: "该歌曲因版权原因暂时无法播放", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.region-and-rights-cjk-eu"},
		{msg: "Ce modèle a été retiré à la demande du titulaire des droits.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.region-and-rights-cjk-eu"},
		{msg: "麦克风已被其他应用占用", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.audio-device-in-use"},
		{msg: "Serial error: [Errno 16] Device or resource busy: '/dev/ttyACM0'", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.serial-port-in-use"},
		{msg: "Your printer is offline. Make sure OctoPi is powered on.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.switch-on"},
		{msg: "Make sure the phone is on the same Wi-Fi network.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device"},
		{msg: "Quota exceeded", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.quota-exceeded-no-window"},
		{msg: "Quota exceeded for this API key: 100 requests per minute", http: status(429), class: classify.Reliability, code: classify.CodeRetryableTransient},
		{msg: "Rate limit quota exceeded. Please reduce the rate of requests.", http: status(429), class: classify.Reliability, code: classify.CodeRetryableTransient},
		// A count held at once, raised by someone or freed by the person;
		// a rate that refills is not this.
		{msg: "You already have the maximum number of ebook holds on your card. Return an item to borrow another.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.holding-limit-reached"},
		{msg: "Concurrent build limit for your organisation reached (5). Contact your sales representative to raise the limit.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.holding-limit-reached"},
		{msg: "Request limit reached, try again later or contact support to increase the limit.", http: status(429), class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.not-ready-yet-busy"},
		// Basque, Spanish and Portuguese work still under way or queued.
		{msg: "Zerbitzaria ez dago une honetan erabilgarri. Saiatu berriro geroago.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy"},
		{msg: "La factura todavía se está procesando en el servidor del SRI; inténtelo de nuevo en unos minutos.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy"},
		{msg: "Relatório em processamento. Posição na fila: 3.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy"},
		{msg: "Ya existe una importación en curso para esta empresa. Espera a que finalice para iniciar otra.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy"},
		// Memberships to renew, cards to activate, dues to pay.
		{msg: "Keahlian perpustakaan anda sudah tamat tempoh.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.membership-renew"},
		{msg: "U heeft geen geldig abonnement meer; verleng uw abonnement om verder te lezen.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.membership-renew"},
		{msg: "Akaunti yako haijathibitishwa bado.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.membership-renew"},
		{msg: "Ausleihe gesperrt: es bestehen ausstehende Mahngebühren von 4,50 EUR.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.unpaid-dues"},
		{msg: "Remboursement impossible : cotisation non payée pour le trimestre en cours.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.unpaid-dues"},
		{msg: "Renewal blocked: you have outstanding fines of $12.00 on your account.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.unpaid-dues"},
		// Thai and Arabic: not open where the caller is.
		{msg: "ฟีเจอร์นี้ยังไม่เปิดให้บริการในประเทศของคุณ", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.region-not-yet"},
		{msg: "هذه الخدمة غير متاحة حاليا في مدينتك", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.region-not-yet"},
		{msg: "عذراً، هذا التطبيق غير متاح في دولتك.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.region-restricted-ar"},
		// Amharic and Swahili.
		{msg: "ደንበኛው አልተገኘም", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-am-sw"},
		{msg: "Namba ya simu haikupatikana kwenye mfumo.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-am-sw"},
		{msg: "Jina ni refu sana? Hapana: maelezo ni mrefu mno.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.sw-too-long"},
		// Access denied for a wrong password is a sign-in; "not authorised
		// to open" is a right the account lacks.
		{msg: "Zugriff verweigert: Kennwort ungültig.", http: status(401), class: classify.Governance, code: classify.CodeAuthRequired},
		{msg: "Accès refusé : mot de passe incorrect.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth"},
		{msg: "Utente non autorizzato a modificare questa prenotazione.", http: status(403), class: classify.Governance, code: classify.CodePermissionDenied, family: "access.permission-it"},
		{msg: "Para continuar, vuelva a ingresar sus credenciales del banco.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-reenter-es-pt"},
		{msg: "A conexão com o banco expirou: insira novamente suas credenciais.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-reenter-es-pt"},
		{msg: "Cold store B has no available capacity for the requested dates.", http: status(422), class: classify.Capability, code: classify.CodeInvalidInput},
		// Queues, people to be free, maintenance with its end, in seven
		// languages.
		{msg: "Todos los asesores están ocupados. Permanece en la fila; tu lugar es el número 3.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-queue-maintenance-more"},
		{msg: "Você está na fila para o atendimento. Tempo estimado de espera: 4 minutos.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-queue-maintenance-more"},
		{msg: "Die Plattform wird gerade gewartet und steht ab 6 Uhr wieder zur Verfügung.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-queue-maintenance-more"},
		{msg: "Het slot reageert niet. Probeer het over enkele seconden opnieuw.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-queue-maintenance-more"},
		{msg: "ただいま点検中のため、ご利用いただけません。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-queue-maintenance-more"},
		{msg: "الغرفة ممتلئة، يرجى الانتظار حتى يتوفر مكان.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-queue-maintenance-more"},
		// Where the service does not go, in Dutch and Spanish.
		{msg: "Deze dienst is nog niet beschikbaar in jouw gemeente.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.service-area-nl-es"},
		{msg: "Por ahora no contamos con envíos a domicilio en tu código postal.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.service-area-nl-es"},
		// A device a person must power, connect or come near; a bare
		// offline device is a wait.
		{msg: "Scale not reachable. Make sure Bluetooth is on and you are within range.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device"},
		{msg: "Terminal offline. Check the terminal's network connection and power.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device"},
		{msg: "El termostato no responde. Compruebe la conexión WiFi del dispositivo.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device"},
		// A USSD menu to dial again, memcached full with nothing to evict.
		{msg: "Your session has expired. Please dial *247# again to continue.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.ussd-dial-again"},
		{msg: "SERVER_ERROR out of memory storing object", class: classify.Governance, code: classify.CodeUserActionRequired, family: "datastores.memcached-no-memory"},
		// Commands delivered or retried once the device is back, rain
		// delays, DICOM's transient rejection: waits.
		{msg: "Gateway offline. Your schedule will be delivered when the gateway reconnects.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.delivered-when-back"},
		{msg: "Mower is charging. Try again once it has finished.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.delivered-when-back"},
		{msg: "Zählerstand nicht verfügbar; die Abfrage wird automatisch wiederholt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.delivered-when-back"},
		{msg: "Irrigation paused: rain delay active for 12 more hours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.rain-delay"},
		{msg: "Association rejected (rejected-transient): no reason given", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.dicom-rejected-transient"},
		// Parts of a machine to empty, insert or clean.
		{msg: "尘盒已满，请清空尘盒后继续", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.part-to-service-intl"},
		{msg: "Wassertank fehlt. Bitte den Wassertank einsetzen.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.part-to-service-intl"},
		{msg: "Rueda lateral atascada. Retire el objeto y reinicie.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.part-to-service-intl"},
		{msg: "Cannot reach the companion app. Make sure the app is running on your phone.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device"},
		// A count the person frees, in Chinese and Japanese.
		{msg: "每个用户最多添加3个设备，请解绑后再添加。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.holding-limit-cjk"},
		// Queues and people busy with others, in English; a ban for
		// not showing up.
		{msg: "You are now in the queue for support. Estimated wait time: 3 minutes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.in-queue-en"},
		{msg: "All agents are currently assisting other customers. Please hold.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.in-queue-en"},
		{msg: "Shipment not found at the carrier yet. We will keep retrying for 48 hours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.in-queue-en"},
		{msg: "Booking disabled for 14 days due to repeated no-shows.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.no-show-ban"},
		{msg: "Sincronización encolada: hay otra actualización en curso con el canal.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy"},
		{msg: "O arquivo ainda está sendo processado pelo servidor.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy"},
		// Instruments settling or held by another program; a moment in
		// four more languages; quotas raised on request and services not
		// offered yet in the Nordics.
		{msg: "Balance reading unstable, waiting for stability.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.settling-initialising"},
		{msg: "Laser is still warming up.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.settling-initialising"},
		{msg: "Open failed: the camera is being used by another application.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Palvelu ei vastaa juuri nyt. Yritä hetken kuluttua uudelleen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy"},
		{msg: "Kommunen erbjuder inte digital ansökan ännu.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.not-offered-yet-nordic"},
		{msg: "Månedskvoten er brukt opp. Kontakt kundeservice for økt kvote.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.quota-raise-on-request"},
		// No unspent outputs to spend, requests blocked by site policy, an
		// ACME challenge the client could not reach.
		{msg: "Wallet error: address has no spendable unspent outputs", http: status(500), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.no-unspent-outputs"},
		{msg: "Too many requests from this address; blocked by site policy.", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.blocked-by-site-policy"},
		{msg: "Could not reach http://example.org/.well-known/acme-challenge/abc123 from the validation server", class: classify.Capability, code: classify.CodeInvalidInput, family: "tls.acme-challenge-unreachable"},
		// Networks and reporting services that do not reach the address yet,
		// steps not taken online, settings a mode does not offer; outages
		// being repaired; a Korean approval to finish on the phone; a
		// national sign-in first; a duplicate open ticket; a router to
		// restart and a sensor to go and look at.
		{msg: "Sorry, this property is not yet ready to connect to our fibre network.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.coverage-not-yet"},
		{msg: "Ce service n'est pas disponible dans votre commune.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.coverage-not-yet"},
		{msg: "Die Gemeinde nimmt nicht an der Plattform teil.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.coverage-not-yet"},
		{msg: "This change cannot be done online; please visit a branch.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.not-online"},
		{msg: "Port forwarding is not available while the router is in bridge mode.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.not-in-this-mode"},
		{msg: "Er is een storing in de regio; onze monteurs werken aan herstel.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "La centralina si sta riavviando, riprova tra poco.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "인증 시간이 만료되었습니다. 스마트폰에서 인증을 완료해 주세요.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.auth-complete-on-phone-ko"},
		{msg: "Para continuar debe identificarse con su DNI electrónico.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.identify-first-es-ko"},
		{msg: "You already have a pending service request for this address.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families.duplicate-open-request"},
		{msg: "No internet connection detected. Please restart your router.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.restart-your-router"},
		{msg: "Make sure the gateway is plugged in and its lights are on.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.restart-your-router"},
		{msg: "Valve stuck: check for obstructions in the line.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-check"},
		// A file open on another computer, parcels refused to a country by
		// official order, maintenance breaks (Finnish, Danish), signing in
		// again (Finnish, Malay, German), an account banned for breaking
		// the rules.
		{msg: "The company file is open in Sage on another computer.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.open-in-another-instance"},
		{msg: "Por disposición oficial no se aceptan paquetes con destino a este país.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.no-shipping-to-country-es"},
		{msg: "Palvelussa on huoltokatko tänään klo 22–24.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "Der er driftsforstyrrelser på selvbetjeningen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "Istunto on päättynyt. Tunnistaudu uudelleen.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.reauth-fi-ms-de"},
		{msg: "Akaun telah dikunci selepas tiga percubaan.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.reauth-fi-ms-de"},
		{msg: "Seller account banned for repeated policy violations.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.suspended-for-violation"},
		{msg: "Custom cutting is not available for delivery addresses in Norway.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.coverage-not-yet"},
		// Self-exclusion and records closed by law; play only from within a
		// country; contacts who unsubscribed (French, German); a catalogue
		// open in another named instance; a cuff to put on again; a sensor
		// warming up (Chinese); location off, every screen in use; a live
		// event not started; a state not served yet.
		{msg: "Betting is blocked: the customer is on the national self-exclusion register.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.excluded-or-closed-by-law"},
		{msg: "Uppgifterna omfattas av sekretess och kan inte lämnas ut.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.excluded-or-closed-by-law"},
		{msg: "Sorry, you must be physically located in Ontario to play.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.located-in-country"},
		{msg: "Der Empfänger hat sich vom Newsletter abgemeldet.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.unsubscribed-eu"},
		{msg: "The catalog is already open in another Lightroom instance.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.open-in-another-instance"},
		{msg: "Reading failed. Reposition the sensor and measure again.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-check"},
		{msg: "探头预热中，请稍候", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "Location services are disabled. Turn them on to check in.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.location-off-screens-full"},
		{msg: "Too many people are watching: stop playback on another device.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.location-off-screens-full"},
		{msg: "The broadcast has not started yet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.stream-not-started"},
		{msg: "Online ordering is not available in your province yet.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.coverage-not-yet"},
		// A program, interpreter, library or USB device missing on this
		// machine, and a repository whose name ends in -sdk that is simply
		// not there.
		{msg: "Error: interpreter 3.11 not found; install it with your version manager.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devtools.missing-local-dependency"},
		{msg: "Plotter USB device not found.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devtools.missing-local-dependency"},
		{msg: "The repository acme/payments-sdk could not be found.", class: classify.Capability, code: classify.CodeResourceNotFound},
		// A trainer held by another app; heavy traffic (French), a timeout
		// (Norwegian); a card reader or signing component to start; a court
		// that takes no e-filing; a no-fly zone, unless a permission is
		// pending; a firmware update under way; a donor deferred.
		{msg: "Heart-rate sensor is already connected to another app.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Le portail connaît une forte affluence, merci de patienter.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "Tidsavbrudd mot registeret.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "Signatur fehlgeschlagen: Smart card reader not detected.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.local-signing-component"},
		{msg: "This matter has not been designated for e-filing.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.not-filed-electronically"},
		{msg: "Mission refused: the polygon crosses a no-fly zone.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.no-fly-zone"},
		{msg: "Gateway firmware update in progress; commands are queued.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.update-in-progress"},
		{msg: "You cannot donate platelets again until your deferral period ends.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.donor-deferral"},
		// A device to switch on (Chinese); a security delay before the next
		// attempt and an operator told to fix a machine; a signal to come
		// back (German); rewards sold out and campaigns closed.
		{msg: "设备离线，请开机并连接网络。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device"},
		{msg: "Unlock refused. Wait 5 minutes with the key in position before another attempt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.wait-before-next-attempt"},
		{msg: "Locker bank jammed: our technician has been notified and will clear it today.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.wait-before-next-attempt"},
		{msg: "Position wird nach Wiederherstellung der Verbindung gesendet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "Las entradas de esta fecha están agotadas.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.sold-out-closed"},
		{msg: "この商品は完売しました", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.sold-out-closed"},
		// A value too large for a fixed-width field of a file format.
		{msg: "Internal Error: glyph count 70211 does not fit into a 16-bit field", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.fixed-width-overflow"},
		// Serial ports held by another program (Russian, German); a mount
		// to power; an option to switch on first; a session an API expired.
		{msg: "Порт COM7 занят другим приложением.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Scanner antwortet nicht. Check power and USB cable.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device"},
		{msg: "Remote control is not enabled. Enable it under Settings > Remote.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.enable-setting-first"},
		{msg: "<Response><Error>Session Timeout</Error></Response>", class: classify.Governance, code: classify.CodeAuthRequired, family: "families.session-timeout-auth"},
		{msg: "OCI runtime create failed: failed to register with gpu-mgr: dial unix /run/gpu/mgr.sock: connect: no such file or directory", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devtools.daemon-socket-missing"},
		// An article out of stock at the supplier, even "temporarily"; a
		// camera or a vehicle's box offline; waits in Korean, Japanese,
		// German, Italian and Amharic; a lockout to ask support about; a
		// window closed, a kind of card refused, an age limit; an app to
		// update; a full disk named by a database error.
		{msg: "Articolo momentaneamente mancante presso il magazzino centrale.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.out-of-stock-supplier"},
		{msg: "PZN 04711234 ist zurzeit nicht lieferbar.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.out-of-stock-supplier"},
		{msg: "Die Kamera am Eingang ist derzeit nicht erreichbar.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "La caméra du parking est hors ligne.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "현재 접속 대기 중입니다. 잠시만 기다려 주세요.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-ko"},
		{msg: "夜間のシステム停止時間のため、照会できません。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-ja"},
		{msg: "Der Datenabgleich läuft, bitte warten.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "Errore temporaneo del servizio pagamenti.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "አገልግሎቱ በጥገና ላይ ነው።", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-moment-more"},
		{msg: "Your login has been temporarily locked. Please contact support to unlock it.", class: classify.Governance, code: classify.CodeUserActionRequired, family: ""},
		{msg: "The scholarship application window for this year has closed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "Enrolment deadline has passed for the spring term.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "Segmentation fault: the application window closed unexpectedly.", class: classify.Capability, code: classify.CodeInternalError, family: ""},
		{msg: "Prepaid cards are not accepted for this booking.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-card-kind-age"},
		{msg: "この作品は15歳未満の方はご購入いただけません。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-card-kind-age"},
		{msg: "Please update the app to the latest version to continue.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.update-app-first"},
		{msg: "Failed to update the app to the latest version: connection timed out.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: ""},
		{msg: "database error: could not write block: No space left on device", class: classify.Governance, code: classify.CodeUserActionRequired, family: ""},
		// A device offline with its power, battery or cable to check, in
		// other languages; a serial port taken (Chinese).
		{msg: "Alat tidak terhubung. Periksa kabel dan daya listrik alat.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device-intl"},
		{msg: "Le lecteur ne répond pas. Vérifiez l'alimentation et le câble USB.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device-intl"},
		{msg: "端口 COM3 已被占用", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		// A region's law; a deadline to file or pay; cheating detected
		// (Japanese); a consumable to load; waits in Czech and Slovak; a
		// unit not communicating (Czech); a connection being made again;
		// a game to update.
		{msg: "This title is not available for sale in your country.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.region-restricted"},
		{msg: "Real-money games are not permitted in your state under local laws.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.region-restricted"},
		{msg: "Le délai de dépôt est dépassé pour cet exercice.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "チート行為が確認されたため、アカウントを凍結しました。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.suspended-for-violation"},
		{msg: "Reagent short: TP on module 1.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill"},
		{msg: "Platba se nezdařila, probíhá plánovaná údržba.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "Čidlo v garáži nekomunikuje.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "Link to the plate reader dropped; attempting to reconnect.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.reconnecting"},
		{msg: "Connection lost. Failed to reconnect after 5 attempts.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: ""},
		{msg: "Your client is out of date. Please update the client.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.update-app-first"},
		// A password, PIN or key named wrong in other forms; not a
		// password that breaks a length rule.
		{msg: "Login rejected: invalid master password.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families.login-failed-more"},
		{msg: "The service key provided is not valid.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families.login-failed-more"},
		{msg: "Wrong card number or PIN.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families.login-failed-more"},
		{msg: "Invalid password: must be at least 12 characters long.", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		// Something not found, with the hint of what to install or run.
		{msg: "Error: Cannot find module 'sharp'.\nTry running: npm install sharp", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devtools.not-found-install-hint"},
		{msg: "Index file not found. Run `docsearch generate` to build it.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devtools.not-found-install-hint"},
		// Money short; a resource limit of the account.
		{msg: "Payment refused: not enough money on the wallet.", http: status(400), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing"},
		{msg: "Creating the volume would exceed the volume limit for the account.", http: status(400), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing-plan"},
		// A board to put in bootloader mode by hand.
		{msg: "Failed to connect: device is not in DFU mode. Hold BOOT while plugging it in.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.press-button"},
		// A program on the person's machine to start; a unit to switch on,
		// even when it is not responding; a meter concentrator not
		// communicating; a connector (German); a record open on another
		// workstation (German); SQL Server out of reach; a phone prompt
		// nobody answered.
		{msg: "Could not connect to the imaging bridge. Please check that the Bridge service is running.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.start-program"},
		{msg: "Scanner not responding. Make sure the scanner is switched on and try again.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.switch-on"},
		{msg: "Read failed: concentrator 88 is not communicating.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Der Konnektor ist derzeit nicht erreichbar.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "Der Auftrag ist an einem anderen Arbeitsplatz geöffnet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "[DBNETLIB][ConnectionOpen (Connect()).]SQL Server does not exist or access denied.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "datastores.sqlserver-unreachable"},
		{msg: `STK push failed: 1037 DS timeout user cannot be reached`, class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.person-did-not-answer"},
		{msg: "You have exceeded your daily API request limit of 500.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing-cap"},
		// Chargers and terminals offline (Japanese); a meter silent
		// (Spanish).
		{msg: "センサーがオフラインです。最終受信: 2時間前", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "El medidor no ha reportado datos desde ayer.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		// A compliance screen's refusal; automated access a site forbids.
		{msg: "Payout declined by AML screening.", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.policy-screening"},
		{msg: "Automatisierte Zugriffe auf diese Seite sind nicht gestattet.", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.policy-screening"},
		// A biometric reader waiting for the person; a lockout to ask
		// support about, on a 423, and not one for a violation; a quota
		// with its window written short.
		{msg: "Fingerprint not recognised. Place your finger flat on the sensor.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.biometric-capture"},
		{msg: "A conta foi bloqueada após várias tentativas. Entre em contato com o suporte.", http: status(423), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.lockout-contact-support"},
		{msg: "Your account has been blocked for a violation of our terms. Contact support.", class: classify.Governance, code: classify.CodePolicyBlocked, family: ""},
		{msg: "Quota exceeded: 100 per 1m allowed.", http: status(429), class: classify.Reliability, code: classify.CodeRetryableTransient, family: ""},
		// A monitor offline (Chinese); a beacon with no position for hours
		// (French); a satellite terminal without coverage (Spanish); a
		// record another user holds (German, English); a fee payment
		// pending is not a state to wait for.
		{msg: "3号床监护仪离线", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Navire 7: aucune trame reçue depuis 2 heures.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Boya sin cobertura satelital desde las 04:10.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Die Zeichnung ist durch einen anderen Benutzer gesperrt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "Part 220-14 is checked out by another user.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "Your exam fee payment status is pending. The form counts only after successful payment.", class: classify.Governance, code: classify.CodeUserActionRequired, family: ""},
		{msg: "Water kiosk K-221 is offline. Last sync 40 minutes ago.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Charging station offline (last seen 2 hours ago)", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "給水ボードがオフラインです。最終接続：10分前", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Medidor MT-12 sem comunicação há 3 horas.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "La borne n'a plus communiqué depuis hier soir.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "Ierīce nav tiešsaistē kopš 08:15.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "Pump P-3 motor fault detected. Service technician required.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill"},
		{msg: "Chemical tank must be refilled before the next cycle.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill"},
		{msg: "端末に近づいてから、もう一度お試しください。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device-intl"},
		{msg: "Det er dessverre utsolgt på denne turen. Velg en annen avgang.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.sold-out-closed"},
		{msg: "Kuota kursi untuk keberangkatan ini telah habis.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.sold-out-closed"},
		{msg: "Mission rejected: waypoint 7 is outside the geofence set for this mission.", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "ご指定の圃場はサービス提供地域外です。", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-3"},
		{msg: "该点位不在监测覆盖范围内。", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-3"},
		{msg: "The pickup point is outside our operating boundary and cannot be served.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-3"},
		{msg: "Card BIN 700000 is not part of the partner acceptance network.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-3"},
		{msg: "Batas maksimal transaksi untuk hari ini sudah tercapai.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.balance-ru-vi-id"},
		{msg: "Gate 4 reader offline: no heartbeat for 90 s.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Lecteur de badges hors ligne depuis ce matin.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "Aucune communication avec la centrale depuis 3 heures.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl"},
		{msg: "본인 인증 시간이 초과되었습니다. 처음부터 다시 진행해 주세요.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.person-did-not-answer"},
		{msg: "支付验证超时，请重新发起支付。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.person-did-not-answer"},
		{msg: "请求过于频繁，请输入验证码后继续操作", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.bot-check"},
		{msg: "Sorry, pickup is not available in your postcode yet.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "We do not service postal code X1X 1X1 at the moment.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Ta funkcja jest niedostępna dla Twojego kraju.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.region-restricted-eu"},
		{msg: "Payment requires authentication: the cardholder must complete the 3D Secure challenge.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.card-3d-secure"},
		{msg: "Pago no completado: falta la verificación 3DS del titular.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.card-3d-secure"},
		{msg: "Dokument je právě upravován jiným uživatelem.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "Your app version is no longer supported. Please upgrade to keep booking.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.update-app-first"},
		{msg: "La impresora no responde. Verifique que esté conectada al puerto USB.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device-intl"},
		// A fare changed since the quote is no lost race: families-more.conflict-retry stands aside.
		{msg: "The fare has changed since your quote. Please request a new quote.", http: status(409), class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "Selection rejected: the odds have changed since you added it.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.odds-changed"},
		{msg: "Las cuotas de tu boleto han cambiado.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.odds-changed"},
		{msg: "간편인증 요청시간이 초과되었습니다. 인증 후 다시 시도해 주세요.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.person-did-not-answer"},
		{msg: "Setoran di luar jam operasional bank.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Su retiro se procesará en el siguiente día hábil.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Drill rig 4: emergency stop button is engaged on the operator panel.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.emergency-stop"},
		{msg: "Conveyor start refused. Close and lock the gate before starting.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.emergency-stop"},
		{msg: "Daily API call limit of 500 reached. Try again tomorrow.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing-cap"},
		{msg: "You have used your request quota for today.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing-cap"},
		{msg: "Command queued; 2 of 12 tags have not answered. Last contact 40 minutes ago.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Base station B-2 is not connected. Last signal 2025-01-04 09:12.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "センサー「A棟」からの通信が30分以上ありません。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Bodemsensor S-4 niet bereikbaar sinds 08:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Perangkat pakan otomatis tidak merespons.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Feeder F-12 last seen 2 hrs ago.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "ポンプ室のカセットが空です。薬剤を補充してください。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill"},
		{msg: "Carousel stalled at bay 4. Clear the obstruction, then resume.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.clear-obstruction"},
		{msg: "Barcode unreadable. Remove and reinsert the cassette.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.clear-obstruction"},
		{msg: "search failed: [parsing_exception] unknown query [mach]", http: status(500), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.search-query-parse"},
		{msg: "Failed to parse query [author:(Smith]", http: status(500), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.search-query-parse"},
		{msg: "عذراً، الموعد المطلوب غير متوفر. يرجى اختيار موعد آخر.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "Same-day delivery is not yet available in Ogun state.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Sorry, we currently serve 4 provinces only.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Havale işlemleri mesai saatleri dışında yapılamaz.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Transfer RTGS hanya diproses pada jam operasional bank.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Teenus on ajutiselt suletud: käivad hooldustööd.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-baltic"},
		{msg: "Päring ebaõnnestus. Palun proovige mõne aja pärast uuesti.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-baltic"},
		{msg: "Tiada respons daripada pelayan pembayaran. Sila cuba sebentar lagi.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-ru2-vi-id-ar"},
		{msg: "ID pelanggan tidak ditemukan. Pastikan ID sudah terdaftar.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-ru-vi-id-ar"},
		{msg: "Pesanan tidak dijumpai untuk nombor ini.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-ru-vi-id-ar"},
		{msg: "Dokument s číslem 2231 nebyl v archivu nalezen.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-ru-vi-id-ar"},
		{msg: "Günlük sorgu limitinize ulaştınız. Limit yarın yenilenir.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.balance-eu3"},
		{msg: "This permit is only available to residents of the borough.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.residency-eligibility"},
		{msg: "Non-residents of Canada are not eligible for this tag.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.residency-eligibility"},
		{msg: "Open to Omani nationals and GCC residents only.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.residency-eligibility"},
		{msg: "You are not a verified resident of this building. Ask the manager to approve your unit.", class: classify.Governance, code: classify.CodeUserActionRequired, family: ""},
		{msg: "This fine is not payable online. Pay at the town hall.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.not-online"},
		{msg: "Hunting tags cannot be purchased online. Visit a licence vendor.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.not-online"},
		{msg: "Período de inscrições encerrado para o processo seletivo.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "El periodo de postulación a la beca ha finalizado.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "Hakuaika päättyi 15.3. klo 15.00.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "Sista ansökningsdag har passerat för kursen.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "Die Bewerbungsfrist ist abgelaufen.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "报名已截止，请关注下一期。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "Il termine di presentazione della domanda è scaduto.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "The edit window for submitted forms has closed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "HttpSolrClient$RemoteSolrException: Error from server: undefined field authr", http: status(500), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.search-query-parse"},
		{msg: "SIP/2.0 486 Busy Here: the far end is already connected to another console", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "SIP/2.0 486 Busy Here", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.sip-busy"},
		{msg: "No hemos recibido la confirmación de tu token. La operación expiró por tiempo de espera.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.person-did-not-answer"},
		{msg: "Pieprasījums neizdevās. Mēģiniet vēlreiz pēc brīža.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-baltic"},
		{msg: "Connexion à la caméra impossible. Nouvelle tentative dans 15 secondes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-eu"},
		{msg: "ただいまサービス提供時間外です。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "La mesa de ayuda atiende de 9 a 18. Vuelva a intentarlo dentro del horario de atención.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Jenis dokumen ini tidak disokong oleh sistem.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.unsupported"},
		{msg: "Für die angegebene Lieferadresse ist der Containerdienst derzeit nicht verfügbar.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Oturumunuz zaman aşımına uğradı. Lütfen tekrar giriş yapınız.", class: classify.Governance, code: classify.CodeAuthRequired, family: ""},
		{msg: "Dienst derzeit nicht verfügbar.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-eu2"},
		{msg: "This version of the application is no longer supported. Please update it from the store.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.update-app-first"},
		{msg: "Символы с картинки введены неправильно.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.bot-check"},
		{msg: "Permits cannot be applied for online. Applications must be made at a district office.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.not-online"},
		{msg: "Water meter WM-0042 has not checked in recently.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Logger L-77 missed its last 4 scheduled transmissions.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Zähler 55812 meldet seit 12 Stunden keine Werte.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Lämpöanturi ei ole lähettänyt mittauksia 2 vuorokauteen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "The appointment you picked (Tuesday 10:15, Lagos office) is no longer available.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "La oficina virtual está disponible de lunes a viernes de 8:00 a 18:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "لا يوجد طلب بهذا الرقم", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-ru-vi-id-ar"},
		{msg: "Die diens is tans nie beskikbaar nie.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "На данный момент в системе записи нет свободного времени.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.no-free-slots-now"},
		{msg: "Brak wolnych terminów. Spróbuj jutro.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.no-free-slots-now"},
		{msg: "No appointments available at the moment. New slots are released every Monday.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.no-free-slots-now"},
		{msg: "Ошибка при подключении к NCALayer. Убедитесь, что программа запущена.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.local-signing-component"},
		{msg: "보안 프로그램이 설치되어 있지 않습니다.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.local-signing-component"},
		{msg: "Uw adres valt niet binnen ons bezorggebied.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.service-area-nl-es"},
		{msg: "خدمة التوصيل غير متاحة لهذا العنوان.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.service-area-nl-es"},
		{msg: "Banan kan endast bokas av medlemmar: endast bokning för medlemmar.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.residency-eligibility"},
		{msg: "La pista solo puede ser reservada por vecinos empadronados.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.residency-eligibility"},
		{msg: "Controller C-12 heartbeat missing; last seen 1h 5m ago.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Sensor node lost power at 04:10; no telemetry since.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Reader on gate 3 has not synced taps for 2 hours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Command \"lock\" not acknowledged by scooter 881 within 20 s.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "సర్వర్ బిజీగా ఉంది.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south"},
		{msg: "该医院暂未开通线上缴费服务", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.not-offered-here-zh"},
		{msg: "Hasil belum tersedia. Silakan cek kembali nanti.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-ru2-vi-id-ar"},
		{msg: "Falha na assinatura. Verifique se o token está conectado ao computador.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.local-signing-component"},
		{msg: "ช่วงเวลานี้ถูกจองแล้ว", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "The requested delivery date is no longer available. Please pick another.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "City Express does not operate buses to Paarl.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Region \"Lviv\" is not an active Bolt market.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "A-ASSOCIATE-RJ: calling AE title not recognized (WS03)", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.dicom-calling-ae"},
		{msg: "Your insurance plan (Silver 2) is not accepted at this branch.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.insurance-not-accepted"},
		{msg: "O convênio não cobre este procedimento.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.insurance-not-accepted"},
		{msg: "Drawing DWG-2231 is locked by user mkowalski.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "Registration for this shift has been closed by the coordinator.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.registration-locked-by-organiser"},
		{msg: "Đã hết thời gian đăng ký nguyện vọng.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.policy-window-closed"},
		{msg: "You do not have enough airtime for this request.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.top-up-first"},
		{msg: "Payment failed. Please top up your wallet and try again.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing"},
		{msg: "เครื่องอ่านบัตรหน้าอาคาร ออฟไลน์", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Nomor virtual account telah kedaluwarsa.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.invalid-input"},
		{msg: "Wrong answer. Please type the number shown in the image.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.bot-check"},
		{msg: "The call for proposals for this conference has closed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed"},
		{msg: "Die Abgabefrist für den Beitrag zur Tagung ist leider abgelaufen.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed"},
		{msg: "Nominations closed on 30 June.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed"},
		{msg: "This account was banned for breaching the terms of use.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.rules-violation"},
		{msg: "You cannot be assigned this paper because you have a conflict of interest.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.rules-violation"},
		{msg: "Move rejected: it is not your turn.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.not-your-turn"},
		{msg: "No es tu turno, espera a tu rival.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.not-your-turn"},
		{msg: "Sorry, this workshop is fully booked.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.capacity-full"},
		{msg: "The dinner has reached its maximum capacity.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.capacity-full"},
		{msg: "The auction has not started yet. Bidding opens at 10:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.not-started-yet"},
		{msg: "Die Abstimmung hat noch nicht begonnen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.not-started-yet"},
		{msg: "We are receiving many requests. Please send it again in a few moments.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.again-in-a-moment"},
		{msg: "Your API key has been temporarily throttled due to excessive requests.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.again-in-a-moment"},
		{msg: "The invoice is currently open by another clerk; please wait until they finish.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.open-by-another"},
		{msg: "Ключ электронной подписи не найден. Вставьте носитель и повторите.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.not-found-do-first"},
		{msg: "缴费登记记录不存在，请先办理缴费登记。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.not-found-do-first"},
		{msg: "Die Datei ist gesperrt, weil gerade ein anderer Benutzer sie speichert.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.open-by-another"},
		{msg: "Your report is being prepared. Please check back in a few minutes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.check-back"},
		{msg: "All seats are taken: the maximum number of concurrent sessions for this workspace has been reached.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.check-back"},
		{msg: "Die Auskunft ist während der Ruhezeit am Sonntag nicht möglich.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-for-the-night"},
		{msg: "Payments are not available between 23:30 and 00:30 while the ledger closes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-for-the-night"},
		{msg: "You are in the lobby, waiting for the host to let you in.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.waiting-for-host"},
		{msg: "Check-in blocked: the athlete has not completed the medical form. Please complete the form in your profile.", class: classify.Governance, code: classify.CodeUserActionRequired, family: ""},
		{msg: "rpc error: code = ResourceExhausted desc = no volume group available to serve request for storage class fast-ssd", class: classify.Capability, code: classify.CodeInvalidInput, family: "datastores.no-matching-volume-group"},
		{msg: "Entry refused: gate hours are 05:30-23:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-access-hours"},
		{msg: "Toegang geweigerd: u bent buiten de openingstijden.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-access-hours"},
		{msg: "O depósito abre diariamente a partir das 06:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-access-hours"},
		{msg: "该地址不在配送范围内，暂时无法下单", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Larmet svarar inte. Senaste kontakt för 20 minuter sedan.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Orders will resume shortly after the stock count.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resume-shortly"},
		{msg: "Ce modèle est temporairement en rupture de stock.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resume-shortly"},
		{msg: "Card not read. Hold your membership card against the reader.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.place-on-reader"},
		{msg: "Kan ikke starte: døren står åpen.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.door-open-intl"},
		{msg: "Verriegelung nicht möglich. Bitte schließen Sie die Tür.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.door-open-intl"},
		{msg: "Geofencing is not supported on this tracker model.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.not-supported"},
		{msg: "Der Lieferdienst ist in deinem Kanton noch nicht verfügbar.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-de"},
		{msg: "Pickups are only available from 8:00 am to 6:00 pm.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-access-hours"},
		{msg: "Kasse 4 ist von Bediener 2 gesperrt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.open-by-another"},
		{msg: "The market is closed. The next order cycle opens on Thursday.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resume-shortly"},
		{msg: "La boutique est fermée pour le moment. Les commandes rouvriront demain.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resume-shortly"},
		{msg: "Le délai d'attente de la passerelle est dépassé.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resume-shortly"},
		{msg: "Booking failed: capacity exceeded (requested 4, available 1).", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.capacity-full"},
		{msg: "Sorry, this performance is sold out.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.capacity-full"},
		{msg: "Cửa hàng đang ngoài giờ làm việc, vui lòng thử lại sau.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-access-hours"},
		{msg: "Your items have not arrived at our warehouse yet; consolidate once they do.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resume-shortly"},
		{msg: "DataStoreService: StudioAccessToApisNotAllowed: Studio access to APIs is not allowed. API: GetAsync", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.enable-setting-first"},
		{msg: "Serial link error. Check the USB cable and power-cycle the radio.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.check-cable"},
		{msg: "Zähler antwortet nicht. Bitte Netzwerkkabel prüfen.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.check-cable"},
		{msg: "Login to the reflector has failed, retrying login", class: classify.Governance, code: classify.CodeAuthRequired, family: "families.login-failed"},
		{msg: "Could not open audio device hw:2,0 for output\nDevice or resource busy", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.audio-device-in-use"},
		{msg: "You appear to be outside Ontario. Tickets can only be bought in the province.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.play-from-location"},
		{msg: "Vous devez vous trouver en Ontario pour acheter des billets.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.play-from-location"},
		{msg: "Spielteilnahme gesperrt: Eintrag in der Sperrdatei OASIS.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.excluded-or-closed-by-law"},
		{msg: "Display panel has not synced since 14:05.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Терминал не выходил на связь 3 часа.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Die Buchung ist in Ihrem Land leider nicht verfügbar.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-de"},
		{msg: "The ledger is opened by another workstation in exclusive mode.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.open-in-another-instance"},
		{msg: "Bookings for the summer season open on 1 May at 08:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.not-started-yet"},
		{msg: "Die Buchung für diesen Kurs ist noch nicht freigeschaltet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.not-started-yet"},
		{msg: "Bokningen för sommaren är inte öppen ännu.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.not-started-yet"},
		{msg: "Layanan ini hanya tersedia dari jam 8.00 hingga 17.00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-access-hours"},
		{msg: "The daily entry quota for the north gate has been reached for the selected date.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.capacity-full"},
		{msg: "Det er ikke flere ledige plasser på turen.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.capacity-full"},
		{msg: "Entries can no longer be submitted for this challenge.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed"},
		{msg: "作品募集のエントリー受付は終了しました。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed"},
		{msg: "Tempoh permohonan biasiswa telah tamat.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed"},
		{msg: "Sambungan ke pelayan tamat masa. Sila cuba lagi.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-ru2-vi-id-ar"},
		{msg: "This centre has no remaining places for Grade 3 in this session. Please choose another session.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.capacity-full"},
		{msg: "Sorry, this stylist is not accepting new clients right now.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.not-taking-clients"},
		{msg: "My books are closed until spring; check back later.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.not-taking-clients"},
		{msg: "No appointments right now; new slots are released every morning.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.no-free-slots-now"},
		{msg: "Keine Termine frei. Neue Termine werden jeden Montag freigeschaltet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.no-free-slots-now"},
		{msg: "Gateway has not connected to the cloud in 15 minutes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "Le capteur n'est plus connecté depuis le 03/02.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "The lamp is connected to another phone. Disconnect it there first.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.held-by-another-phone"},
		{msg: "Mat not loaded. Insert the mat and press Load.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.load-mat"},
		{msg: "Daily deposit limit of €1,000.00 reached. Please try again tomorrow.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing-cap"},
		{msg: "LoRa gateway not seen for 3h 05m", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "Die Waage hat sich seit 2 Tagen nicht gemeldet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "This lesson is locked until you finish level 3.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.content-locked"},
		{msg: "Oven warm-up in progress; baking programs start when the setpoint is reached.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.cycle-running"},
		{msg: "Exports are paused until the sync finishes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.cycle-running"},
		{msg: "Die Anlage befindet sich in der Spülung. Bitte etwas Geduld.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.cycle-running"},
		{msg: "Chairlift 4 stopped due to high winds.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "Piste fermée en raison des intempéries.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "Bergbahn wegen Sturm eingestellt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "Market closed. Trading reopens between 08:00 and 16:30 on weekdays.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours"},
		{msg: "Your boarding passes will be available 24 hours before departure.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours"},
		{msg: "Fermenteur F3 hors ligne", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-intl-fr"},
		{msg: "Pump station locked out until the fault is reset at the panel.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.person-at-controller"},
		{msg: "Sensor 3: open circuit. Check the sensor wiring.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.person-at-controller"},
		{msg: "Tickets for this late show are for over-18s only.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.age-restricted"},
		{msg: "The deadline for filing the annual return has passed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		{msg: "応募受付は終了しました。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		{msg: "Your gym membership has expired. Log in to renew it.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.membership-expired"},
		{msg: "Security level 2 cannot delete schedules. Level 5 or higher required.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.level-required"},
		{msg: "Zu Ihrer Suche wurden keine Artikel gefunden.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.no-search-hits"},
		{msg: "Your invoice PDF is still being generated.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.still-generating"},
		{msg: "No advisers are currently available. Please hold.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.still-generating"},
		{msg: "Keine Antwort vom Server innerhalb von 20 Sekunden.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.still-generating"},
		{msg: "You are not the owner of this listing.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.not-the-owner"},
		{msg: "We couldn't sign you in. Check your email and password.", class: classify.Governance, code: classify.CodeAuthRequired, family: "access.could-not-log-you-in"},
		{msg: "The kennel has no capacity for the selected dates.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.date-full"},
		{msg: "Your library card has expired. Renew it at any branch.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.membership-expired"},
		{msg: "This project was created with a newer version of the editor. Please update to continue.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.update-or-approve"},
		{msg: "De meldtermijn van 7 dagen is verstreken.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		{msg: "Unpaid fines must be settled before you can borrow again.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.fees-outstanding"},
		{msg: "Registration for summer camps opens on April 3 at 9:00 AM.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Показания можно передать: передача возможна только с 20 по 25 число.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Başvuru dönemi henüz başlamadı.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Only coaches can edit the lineup.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.only-role"},
		{msg: "Entries for the autumn regatta closed on 2 September.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Die Rückmeldefrist ist abgelaufen.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Søknadsfristen er utløpt.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Måleren har ikke sendt data siden 14.05.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "Exam results will be available from 9am on 14 August.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.results-not-released"},
		{msg: "Grades for this semester have not been published yet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.results-not-released"},
		{msg: "Sensore non raggiungibile. Ultimo dato ricevuto: 5 ore fa.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "The programming interface is in use by another program. Close the other program first.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.held-by-another-phone"},
		// A device to put in pairing mode; an interface another program
		// holds; a daily limit in German.
		{msg: "Bind timeout: no transmitter in bind mode found.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.pairing-mode"},
		{msg: "Koppeln fehlgeschlagen. Bitte Gerät in den Kopplungsmodus versetzen.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.pairing-mode"},
		{msg: "USB stick is in use by another program. Close other training apps and retry.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Das tägliche Anfragelimit für Ihre App wurde erreicht.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.daily-limit"},
		// A track section a train occupies; trading hours in German; a
		// record another user holds, until the lock is released.
		{msg: "Rijweg kan niet worden ingesteld: blok 7 is bezet door trein 'IC 812'.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.track-occupied"},
		{msg: "Programmiergleis belegt: es läuft bereits ein Programmiervorgang.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.track-occupied"},
		{msg: "Orders are closed: the exchange is outside its trading hours. Der Handel ist außerhalb der Handelszeiten geschlossen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours"},
		{msg: "Cannot save: the layout is locked by station FOH-2. Unlock it there or wait until the lock is released.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.open-by-another"},
		{msg: "Kanal 4 ist von einem anderen Benutzer gesperrt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.open-by-another"},
		// A submission locked once filed; a locomotive another throttle holds.
		{msg: "This application has already been submitted and is locked for editing.", http: status(409), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.submitted-locked"},
		{msg: "Address 3 is in use by another throttle. Steal?", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.throttle-steal"},
		// Calls for proposals closed in more languages; a machine waiting
		// for a hand; work that resumes by itself; an update under way; a
		// rain sensor; a device another phone holds; a pairing to confirm.
		{msg: "Die Antragsfrist für das Programm ist am 01.02.2025 abgelaufen.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed-intl"},
		{msg: "Het indienen is niet meer mogelijk: de deadline van de ronde is verstreken.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed-intl"},
		{msg: "Výzva je ukončena, návrhy již nelze podávat.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.call-closed-intl"},
		{msg: "Milk carafe not inserted. Insert the carafe to make this drink.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill-intl"},
		{msg: "Wasserbehälter leer. Bitte Wasser nachfüllen.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill-intl"},
		{msg: "Le couvercle n'est pas fermé. Fermez le couvercle pour démarrer.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill-intl"},
		{msg: "Printing paused: the chamber is too warm. The job will resume automatically when it has cooled down.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-automatically"},
		{msg: "电量低，正在返回基站，充满后自动继续工作。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-automatically"},
		{msg: "Remote commands are unavailable: a firmware update is in progress on the vehicle.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.update-in-progress"},
		{msg: "Mähen pausiert: Regensensor aktiv.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.rain-delay"},
		{msg: "Pairing failed: the sensor is connected to another phone.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Bitte bestätigen Sie die Kopplung am Gerät.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.pairing-mode"},
		{msg: "Tracker offline. Last seen 12 minutes ago.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices."},
		{msg: "Klokka er frakoblet. Sist sett for 3 timer siden.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.last-seen"},
		// A bike reported stolen; an update under way in traditional Chinese
		// and German; a studio that opens again at a stated hour; a moment
		// to wait; stock back in weeks is not a wait.
		{msg: "Dieses E-Bike ist als gestohlen gemeldet und kann nicht entsperrt werden.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.reported-stolen"},
		{msg: "裝置正在執行韌體更新，請稍候。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.update-in-progress"},
		{msg: "Das Firmware-Update läuft bereits.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.update-in-progress"},
		{msg: "Die Filiale ist geschlossen und öffnet wieder um 07:30 Uhr.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Der Raum wird vorbereitet. Bitte warten Sie einen Moment.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "ci.yml:9:3: unexpected key \"timeout\" for \"step\" section. expected one of \"name\", \"run\", \"timeout-minutes\"", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.config"},
		// Last online hours ago (German, Finnish); a record another user
		// changed meanwhile (Dutch).
		{msg: "Sensor nicht erreichbar. Zuletzt online vor 3 Stunden.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices."},
		{msg: "Laite ei vastaa. Viimeksi yhteydessä 2 tuntia sitten.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.last-seen"},
		{msg: "Opslaan mislukt: de order is gewijzigd door een andere gebruiker.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-more"},
		{msg: "All delivery slots for Friday are full. Please try again later.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		{msg: "Expense cannot be edited: the accounting period has been closed.", http: status(423), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.period-closed"},
		// A device to check is on or plugged in, in other languages; with
		// "try again" it is a connection to wait for.
		{msg: "Lecteur de badges introuvable. Vérifiez qu'il est branché et allumé.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.check-on-connected-intl"},
		{msg: "체중계를 찾을 수 없습니다. 블루투스가 켜져 있는지 확인해 주세요.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.check-on-connected-intl"},
		{msg: "Verbinding met de meter mislukt. Controleer of de meter is ingeschakeld en probeer het opnieuw.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: ""},
		// A country covered "yet", an app or browser too old to update, a
		// part at its end of life, a firmware file that fails its check, a
		// result locked by the event's official, a button on the device, a
		// while to wait in Swedish, a store closed until a stated hour.
		{msg: "Instant payouts are not available in your country yet.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.coverage-not-yet"},
		{msg: "This version of the Acme Rewards app is no longer supported. Please update to continue.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.update-app-first-named"},
		{msg: "Water filter has reached end of life. Replace the filter to resume dispensing.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.refill"},
		{msg: "Firmware file checksum mismatch. Download the file again.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.firmware-file-corrupt"},
		{msg: "Results for heat 3 are locked by the chief referee.", http: status(403), class: classify.Governance, code: classify.CodePermissionDenied, family: "access.locked-by-official"},
		{msg: "Bootloader: device not found. Press the reset button on the board.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.press-button"},
		{msg: "Cyklarna är inte klara ännu. Försök hämta igen om en stund.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "The kitchen is closed right now. Ordering opens at 11:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		// A city or school that has not opened a service (Chinese); a payee's
		// account closed is the call's input.
		{msg: "当前城市暂未开通代驾服务", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "families-intl.not-offered-here-zh"},
		{msg: "Payment rejected: beneficiary account is closed.", http: status(400), class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		// Floating licences all in use; a reading over its limit while the
		// device waits for what brings it back; a receiver waiting for its
		// fix; a Japanese measurement to let finish.
		{msg: "Checkout failed: all 5 floating licences are in use.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.check-back"},
		{msg: "All 10 user licences are in use. Purchase additional licences to add users.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.upgrade-plan"},
		{msg: "Correction age 30 s exceeds limit. Waiting for the correction stream to resume.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.gnss-fix-wait"},
		{msg: "Point not stored: solution is FLOAT. Waiting for RTK fix.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.gnss-fix-wait"},
		{msg: "計測中です。現在の計測が終了してから再度実行してください。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-moment-more"},
		{msg: "$command,SET BASE TIMEOUT 500,response: PARSING FAILD NO MATCHING FUNC *3A", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.device-command-unparsed"},
		{msg: "Daily query limit reached for this key. Queries reset at midnight UTC.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.billing-cap"},
		// Maintenance in Polish, a wait in European Portuguese, results not
		// out yet in Dutch, a device last in touch hours ago in Italian.
		{msg: "Trwają prace serwisowe. Aplikacja będzie dostępna około godz. 7:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-pl-pt"},
		{msg: "O ecrã está a atualizar. Volte a tentar dentro de alguns minutos.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-pl-pt"},
		{msg: "Er zijn nog geen uitslagen voor deze wedstrijd.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.results-not-released"},
		{msg: "Il sensore non risponde. Ultimo contatto: 3 ore fa.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.last-seen"},
		{msg: "Unsupported webhook event \"visit.geofence_enter\". See the list of supported events.", http: status(400), class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: ""},
		// Weather guards that lift by themselves; an alarm zone open; a
		// program to stop on the device; a setting the provider locked.
		{msg: "Rollladen gesperrt: Windalarm aktiv.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.weather-guard"},
		{msg: "Store bloqué : sécurité vent en cours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.weather-guard"},
		{msg: "Cannot arm: zone 3 'Back door' is open.", http: status(409), class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.alarm-zone-open"},
		{msg: "The hub is busy running a program. Stop the program on the hub to upload.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.stop-running-program"},
		{msg: "This feature has been locked by your installer.", http: status(403), class: classify.Governance, code: classify.CodePolicyBlocked, family: "access.locked-by-provider"},
		{msg: "Config File Error in \"game.yaml\": Invalid setting \"switches:start:debounce_timeout\" - expected time.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.config"},
		{msg: "The receiver is upgrading firmware (step 1 of 2). Settings are accepted after it restarts.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.update-in-progress"},
		{msg: "{\"ok\":false,\"error\":\"Aircraft N512SP is grounded pending repair of a squawk\"}", http: status(200), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.aircraft-grounded"},
		// A device offline to check is switched on (German) is a person's
		// step; a site closed for maintenance (Danish); a shop closed outside
		// a venue's opening hours; an instrument calibrating itself.
		{msg: "Kartenterminal nicht erreichbar. Bitte prüfen Sie, ob das Terminal eingeschaltet ist.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.check-on-connected-intl"},
		{msg: "Butikken er lukket for vedligeholdelse og er tilbage kl. 06:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "Bookings are closed outside pool opening hours. Bookings reopen at 07:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Dispensing paused: arm calibration in progress, about two minutes left.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.calibrating"},
		// Hours that resume tomorrow at a stated time (English, French); a
		// shop not taking consignments for now; a tutor not taking students.
		{msg: "This branch is not buying today. Buying hours resume tomorrow at 09:30.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "La boutique est fermée pour aujourd'hui. Réouverture demain à 9h.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "We are not accepting new trade-ins at this time. Check back soon.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.check-back"},
		// Age limits, a higher edition named by product, sign-ups closed, a
		// device locked by its clinician, a motor cooling down, a robot
		// charging, a German restart or queue, a calculation under way,
		// cloud cover and wind (Japanese), a kiosk that opens daily at a
		// stated hour, a cap per order, a day fully booked, and a session no
		// longer valid (Italian).
		{msg: "Riders under 12 must be accompanied by an adult on this attraction.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.age-limit-stated"},
		{msg: "Mindestalter 16 Jahre für diese Veranstaltung.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.age-limit-stated"},
		{msg: "The minimum age for this driver group is 21. Please adjust the driver's age or choose a different car.", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "Route planning for offline maps is available in TrailMate Premium.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.premium-feature"},
		{msg: "Registrations for the autumn workshop have closed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Stimulation settings are locked by your audiologist.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.locked-by-official"},
		{msg: "Spindle overheated: waiting for cool down before the next job.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.settling-initialising"},
		{msg: "The mower is charging and will leave the dock at 80 %.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.settling-initialising"},
		{msg: "Das Terminal startet neu, bitte einen Moment Geduld.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "Measurements for this scan are being computed.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.not-ready-yet"},
		{msg: "Observation deck closed due to heavy rain. It reopens when the weather clears.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "悪天候のため、ロープウェイは運転を見合わせています。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "The kiosk is closed. Pre-orders open daily at 11:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Express passes are limited to 6 per booking.", http: status(429), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.per-order-limit"},
		{msg: "Le créneau de visite est complet pour aujourd'hui.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-intl.sold-out-closed"},
		{msg: "Accesso negato: la sessione è scaduta, accedi di nuovo.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.session-expired-eu"},
		// A machine's guard door open; a filler sterilising and a batch under
		// way; "try again in a moment" (German); a tracker last reported
		// hours ago; a claim outside its lodgement period.
		{msg: "Cycle cannot start: guard door 1 is open.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.door-open"},
		{msg: "Line 2 is in its CIP cycle. Filling resumes afterwards.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.cycle-running"},
		{msg: "The plant is mixing load 7; the next ticket prints when the current batch completes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.cycle-running"},
		{msg: "Das hat nicht geklappt. Bitte versuchen Sie es gleich noch einmal.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		{msg: "GPS unit on trailer 12 last reported 5 hours ago.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact"},
		{msg: "Rejected: this invoice is outside the private health lodgement period.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		// A report in the queue, controllers still syncing (German), results
		// not yet processed, a download that resumes when the test is
		// complete, charging paused until the pack cools down, bidding that
		// opens minutes before a session, an order window that begins at a
		// stated hour (German), maintenance in Swedish; registration to bid
		// closed, an exam window closed, entries closed (Dutch); every
		// licensed seat in use; a device not found with the step to connect
		// it, and a tool out of Bluetooth range.
		{msg: "Your floor plan is in the queue and usually arrives within two hours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.still-generating"},
		{msg: "Die Zentrale synchronisiert noch die Empfänger. Bitte kurz warten.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.still-generating"},
		{msg: "Results for round 3 have not yet been processed by the federation.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.results-not-released"},
		{msg: "Meter is running an insulation test. Upload will resume when the test completes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.cycle-running"},
		{msg: "Charging halted until the battery cools down.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.settling-initialising"},
		{msg: "Online check-in opens 45 minutes before the start of the event.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Der Vorverkauf startet um 10:00 Uhr. Bitte versuchen Sie es dann erneut.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Portalen genomgår planerat underhåll och är tillbaka kl. 06:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "Registration to bid in the spring sale has closed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "The quiz window for module 4 has closed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Aanmelding voor deze cursus is gesloten.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "All 10 licensed designer seats are in use.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.upgrade-plan"},
		{msg: "Reader not detected. Connect the reader with the USB cable.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.connect-it"},
		{msg: "Messgerät nicht gefunden. Bitte Gerät einschalten.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.connect-it"},
		{msg: "Saw is out of Bluetooth range. Move closer and try the change again later.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.connect-it"},
		// Every licence in use with more to buy (sent with 429), a German
		// firmware update under way, a measurement stabilising (French), a
		// container pre-conditioning, a connection being retried (Finnish),
		// a setting applied when a session ends, work under way with
		// "veuillez patienter"; a program to close first.
		{msg: "All 3 named user licences are in use. Purchase more licences to add this user.", http: status(429), class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.upgrade-plan"},
		{msg: "Der Controller führt gerade ein Firmware-Update durch.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families.update-in-progress"},
		{msg: "Pesée en cours de stabilisation.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.settling-initialising"},
		{msg: "Reefer unit is still pre-cooling; loading opens once the set point is reached.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.settling-initialising"},
		{msg: "Anturi ei vastaa. Yhteyttä yritetään uudelleen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "The new price list will be applied when the current transaction ends.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-automatically"},
		{msg: "Library not reachable. Ensure the editing application is closed before importing.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families.close-program-first"},
		{msg: "Export des pistes en cours, veuillez patienter.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outage-being-repaired"},
		// Bookings that open daily at a stated hour.
		{msg: "Online bookings open daily at 09:00 CET.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		// Nobody free at the moment, work ready within hours, a change sent
		// after the current session, deadlines named as passed, and a Korean
		// sign-in certificate that is the person's, not a server's.
		{msg: "No couriers are available right now in your area.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.none-available-now"},
		{msg: "Aucune ambulance n'est disponible pour le moment dans ce secteur.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.none-available-now"},
		{msg: "Your soil report will be available within 6 hours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.ready-later"},
		{msg: "Les résultats seront disponibles sous 2 h.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.ready-later"},
		{msg: "Settings can be changed after the current session ends.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.ready-later"},
		{msg: "The deadline to renew this permit has passed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		{msg: "Lhůta pro odevzdání přihlášky uplynula.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		{msg: "공인인증서가 만료되었습니다. 인증서를 갱신한 뒤 다시 로그인하세요.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-ko"},
		// Devices silent for hours, services closed for now or not
		// answering at the moment, and time limits run out.
		{msg: "Aucune donnée reçue de la sonde depuis 3 h.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "Boya sin señal en las últimas 4 horas.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "Wszyscy konsultanci są zajęci. Spróbuj ponownie za kilka minut.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "Bookingserveren svarer ikke i øjeblikket.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nordic-cs-hu-ro"},
		{msg: "Die Hotline ist außerhalb der Servicezeiten nicht besetzt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours"},
		{msg: "Ansøgningsfristen for kurset er udløbet.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed-nordic-es"},
		{msg: "No se puede registrar la declaración: plazo vencido.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed-nordic-es"},
		// Shops closed for now, devices last seen hours ago (Danish), and a
		// thermocouple's open circuit, which is a wire to mend.
		{msg: "A loja está fechada neste momento. Volte às 9h.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.closed-now-eu"},
		{msg: "Prodejna je mimo otevírací dobu.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.closed-now-eu"},
		{msg: "Måleren er offline. Sidst set for 3 timer siden.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.last-seen"},
		{msg: "Le capteur n'a pas émis depuis 2 jours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "Zone 1 thermocouple circuit open. Replace the thermocouple.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.open-circuit"},
		// Shops that do not ship to a place, and a German deadline run out.
		{msg: "Sorry, we don't ship to Alaska or Hawaii.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.ship-to"},
		{msg: "Spedizione non disponibile per la Sardegna.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.ship-to"},
		{msg: "Die Frist für den Widerspruch ist abgelaufen.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		// A refused connection from an address not on the allow list, and
		// units silent for a stated time.
		{msg: "Connection refused: client IP is not on the partner allowlist.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.allow-list-2"},
		{msg: "Gateway has not reported in 3 hours.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "终端离线，最后心跳时间 08:15。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		// Hebrew and Greek waits; shipping a law or customs bars, goods
		// sold only to adults or the trade, and registration closed.
		{msg: "השירות עמוס כרגע, נסו שוב מאוחר יותר.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-he-el"},
		{msg: "Η υπηρεσία είναι προσωρινά μη διαθέσιμη. Προσπαθήστε ξανά αργότερα.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-he-el"},
		{msg: "Lithium batteries cannot be shipped to Ireland due to carrier regulations.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.ship-restricted"},
		{msg: "Diese Artikel dürfen leider nicht in die Schweiz versendet werden (Zollbestimmungen).", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.ship-restricted"},
		{msg: "Estos productos no se pueden enviar a Canarias debido a la normativa aduanera.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.ship-restricted"},
		{msg: "Pyrotechnic articles may only be sold to adults.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.sale-restricted"},
		{msg: "Dieses Produkt wird nur an gewerbliche Kunden abgegeben.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.sale-restricted"},
		{msg: "Las inscripciones para el torneo ya están cerradas.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.registration-closed-intl"},
		{msg: "Le iscrizioni al corso sono chiuse.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.registration-closed-intl"},
		{msg: "Nur der Vereinsvorstand darf Spielberichte löschen.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.only-role-may"},
		{msg: "Seuls les administrateurs peuvent supprimer ce dossier.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.only-role-may"},
		{msg: "Bussen är fullbokad. Välj en annan avgång.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.full-choose-another"},
		{msg: "Le créneau est complet, choisissez un autre horaire.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.full-choose-another"},
		{msg: "L'iscrizione al torneo è chiusa.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.registration-closed-intl"},
		{msg: "Solo il tesoriere può approvare questa spesa.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.only-role-may"},
		{msg: "Kurssi on täynnä. Valitse toinen ajankohta.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.full-choose-another"},
		// Words that begin or end with a letter outside ASCII, bounded
		// without \b (TestPackPatternsBoundNonASCIIWords).
		{msg: "Åldersgräns 15 år gäller för filmen.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.age-limit-stated"},
		{msg: "Fristen för anmälan är passerad.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed-nordic-es"},
		{msg: "Nous ne livrons pas à La Réunion.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.ship-to"},
		{msg: "Der Vorverkauf öffnet erst um 10:00 Uhr, versuchen Sie es dann noch einmal.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		// Korean hours and devices offline, a Hungarian session expired,
		// required fields and Spanish shipping barred by law.
		{msg: "지금은 상담 시간이 아닙니다. 평일 10시~17시에 다시 문의해 주세요.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.outside-hours-ko"},
		{msg: "센서가 오프라인입니다.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-ko"},
		{msg: "A munkamenet érvénytelen, jelentkezzen be.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.session-expired"},
		{msg: "Pole „E-mail“ je povinné.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.required-field-intl"},
		{msg: "Das Feld Postleitzahl ist ein Pflichtfeld.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.required-field-intl"},
		{msg: "No enviamos a Chile debido a restricciones aduaneras.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.ship-restricted"},
		{msg: "Bookings are locked for changes within 48 hours of departure.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.locked-before-event"},
		// Water too high or too low, windows that open on a stated day,
		// a German gauge silent for hours, Greek and Hebrew permissions,
		// age limits in German, Italian and French, a Hungarian deadline
		// and an Indonesian registration closed.
		{msg: "Wegen Hochwasser ist die Kanustrecke heute gesperrt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.water-level"},
		{msg: "Rafting trips are cancelled today: the river level is too high.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.water-level"},
		{msg: "Der Ticketverkauf für das Konzert startet am 15. März.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Die Wetterstation sendet seit 3 Stunden keine Messwerte.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since"},
		{msg: "Δεν έχετε άδεια να διαγράψετε αυτό το αρχείο.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-el-he"},
		{msg: "אינך מורשה לצפות בדוח זה.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.permission-el-he"},
		{msg: "Die Teilnahme ist erst ab 18 Jahren erlaubt.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.age-limit-stated"},
		{msg: "A pályázati határidő lejárt.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		{msg: "Pendaftaran lomba telah ditutup.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.registration-closed-intl"},
		// Shops and kitchens not taking orders for now, or opening at a
		// stated time.
		{msg: "本店暂停营业，请稍后下单。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.orders-paused"},
		{msg: "Das Restaurant nimmt momentan keine Onlinebestellungen an.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.orders-paused"},
		{msg: "The kitchen opens at 17:00; orders can be placed from then.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.orders-paused"},
		// A bare "Throttled", a rate limit's word.
		{msg: "Throttled", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.throttled"},
		// Sales or services that resume or reopen at a stated time or day.
		{msg: "Ticket sales resume tomorrow at 9:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-at"},
		{msg: "Der Onlineshop ist wegen Umbau bis Montag geschlossen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-at"},
		{msg: "Les livraisons sont suspendues jusqu'au 5 janvier.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-at"},
		// A place closed now with its reopening or hours, a closing day, orders
		// accepted from a stated day; shipping paused for frost or heat.
		{msg: "The shop is currently closed and will open again at 9:30 tomorrow.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "La oficina está cerrada. Nuestro horario es de 8:00 a 15:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "本日は休館日です。またのお越しをお待ちしております。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Pre-orders for the spring catalogue are accepted from 3 March.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Shipments of live fish are paused this week because of freezing temperatures.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "Wegen Hitze ruht derzeit der Tierversand.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		// Shipping barred by sanctions or import rules (Italian, Japanese),
		// applications closed, a Japanese deadline passed.
		{msg: "Non effettuiamo spedizioni in Svizzera per via delle normative doganali sui semi.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.ship-restricted"},
		{msg: "この商品は輸出規制の対象のため、海外へはお届けできません。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.ship-restricted"},
		{msg: "Applications for the summer residency are now closed.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "レポートの提出期限を過ぎています。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed"},
		// A request to sign in first (Polish, Czech).
		{msg: "Zaloguj się, aby dodać produkt do listy życzeń.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-nordic-slavic"},
		{msg: "Pro stažení faktury se přihlaste.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-nordic-slavic"},
		// Not sent to a place, without a rule given (Norwegian, Swedish).
		{msg: "Vi leverer dessverre ikke til Færøyene.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.ship-to"},
		{msg: "Vi skickar inte till Åland.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.ship-to"},
		// Pre-orders or bookings possible only from a stated day, a stand that
		// reopens on a named day, a shop closed today whose orders resume.
		{msg: "Pre-orders for the autumn range open on 1 September.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "Reservierungen für den Adventsmarkt sind erst ab dem 15. Oktober möglich.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		{msg: "The kiosk is closed for winter and reopens April 2.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-at"},
		{msg: "La boutique est fermée aujourd'hui. Les retraits reprendront demain matin.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "ご注文は毎週月曜日の正午より承ります。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		// Applications or pre-orders closed on a day, a French deadline or
		// period closed, a Finnish registration ended.
		{msg: "Applications for the spring residency closed on February 10.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "La date limite d'envoi des candidatures est dépassée.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "La période d'inscription aux stages est terminée.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Ilmoittautuminen kurssille on päättynyt.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.registration-closed-intl"},
		// A BACnet write aborted or rejected for the value's shape.
		{msg: "BACnet Reject: APDU reject reason invalid-parameter-data-type (analog-value,3)", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.bacnet-bad-value"},
		{msg: "NoResponseFromController: APDU Abort Reason : valueOutOfRange", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.bacnet-bad-value"},
		// Stopped for wind, storm or volcanic gas (Japanese, Korean, Chinese),
		// a place closed today that opens again (Greek), a booking that opens
		// on a day (Swedish).
		{msg: "台風の影響で、ロープウェイの運行を見合わせております。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "태풍으로 인해 유람선 운항이 일시 중지되었습니다.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "由於暴雨，纜車暫停服務。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "Το μουσείο είναι κλειστό σήμερα και θα ανοίξει αύριο στις 10:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Anmälan till vårens kurser öppnar den 15 januari.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		// A discount code expired; a request to sign in before the action.
		{msg: "Der Gutscheincode HERBST10 ist abgelaufen.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.discount-code-expired"},
		{msg: "Kortingscode WELKOM is verlopen.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.discount-code-expired"},
		{msg: "Vous devez être connecté pour laisser un avis.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-must-sign-in"},
		{msg: "Sie müssen angemeldet sein, um Ihre Bestellungen zu sehen.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-must-sign-in"},
		// A browser's native companion not available.
		{msg: "Signing failed: native messaging host is not installed.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.install-or-start-program"},
		// Technical difficulties, a virtual queue, too many requests
		// (Hungarian), a timeout (Greek); a hall closed that opens again
		// (Danish), a track closed until its reopening time (German).
		{msg: "The booking site is experiencing technical difficulties.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more"},
		{msg: "Du befindest dich in der virtuellen Warteschlange.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more"},
		{msg: "Túl sok kérés. Várjon egy percet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more"},
		{msg: "Hallen er lukket nu og åbner igen kl. 14.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Die Strecke ist gesperrt. Wiederöffnung gegen 16:30 Uhr.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Der Vorverkauf beginnt am Freitag um 9 Uhr.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.window-opens"},
		// Reopening on a stated day or hour, in more languages.
		{msg: "La billetterie est fermée ce soir. Les ventes rouvrent demain à 9h00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Le service de livraison reprendra le 3 janvier.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Wegen Inventur ist der Shop bis Freitag geschlossen. Ab Montag ist die Bestellung wieder geöffnet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Wir liefern Frischware erst wieder ab dem 5. Oktober aus.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Rejestracja jest wstrzymana. Zgłoszenia przyjmujemy ponownie od poniedziałku.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "受付期間外です。次回は4月1日9:00より受付を開始します。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "지금은 예매 시간이 아닙니다. 매일 09:00부터 이용하실 수 있습니다.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Prijave so zaprte. Ponovno odprejo se jutri ob 8:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Lịch thi đấu sẽ được cập nhật sau 18 giờ hôm nay.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "We are not accepting new commissions until our spring list opens on 1 March.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		// Access denied with a request to sign in again.
		{msg: "Zugriff verweigert. Ihre Sitzung ist beendet, bitte melden Sie sich erneut an.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-must-sign-in"},
		{msg: "Accès refusé : veuillez vous reconnecter pour continuer.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.auth-must-sign-in"},
		// Applications and campaigns closed; a stated minimum age.
		{msg: "La campagne d'inscription 2025 est close.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Für diesen Jahrgang können keine Anträge mehr gestellt werden.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Die Antragsfrist endete am 30.06.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.entries-closed"},
		{msg: "Du skal være fyldt 15 år for at oprette en konto.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.age-limit-stated"},
		{msg: "Du må være fylt 18 år for å leie bil.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.age-limit-stated"},
		// Not there in the language chosen; shipping not made to a country.
		{msg: "Die Broschüre ist in der gewählten Sprache nicht verfügbar.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.language-not-available"},
		{msg: "Subtitles are not available in the selected language.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.language-not-available"},
		{msg: "Siamo spiacenti, non effettuiamo spedizioni verso il Canada.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.ship-to"},
		// Shipping or sale forbidden by a law where the buyer is.
		{msg: "We cannot ship this knife to Victoria under state weapons laws.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.law-forbids-shipping"},
		{msg: "Aufgrund gesetzlicher Vorgaben können wir Feuerwerk nicht nach Österreich versenden.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.ship-restricted"},
		{msg: "Ce produit ne peut être livré en Suisse en raison de la législation sur les armes.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.law-forbids-shipping"},
		{msg: "La venta de alcohol no está permitida en esta provincia.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.law-forbids-shipping"},
		{msg: "ไม่สามารถขายสินค้านี้ทางออนไลน์ได้ ตามกฎหมายควบคุมเครื่องดื่มแอลกอฮอล์", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.law-forbids-shipping"},
		// Not deliverable to a country; only a named role may do it.
		{msg: "Dit product is niet leverbaar naar Noorwegen.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.ship-to"},
		{msg: "회원 탈퇴는 계약자 본인만 가능합니다.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.only-role-may"},
		{msg: "Zmiany w umowie może wyłącznie osoba upoważniona przez właściciela.", class: classify.Governance, code: classify.CodePermissionDenied, family: "families-intl.only-role-may"},
		// Ordering again from a stated hour (Dutch).
		{msg: "De kassa is gesloten. Reserveren kan weer vanaf 07:00 uur.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		// Reopening at a stated hour (Japanese, Spanish, Thai); stopped for a rough sea (Italian), closed today for wind (Spanish).
		{msg: "本日の受付は終了しました。明朝8:30から受付を再開いたします。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "La piscina está cerrada. Reabrirá el lunes a las 7:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "ร้านปิดชั่วคราว เปิดให้บริการอีกครั้งพรุ่งนี้ 10:00 น.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Traghetto sospeso per mare mosso. Prossimo aggiornamento alle 15:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "La tirolina está cerrada hoy por viento.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		// Not the agent of record, also under a 500 that says so.
		{msg: "Internal Server Error: agent 2231 is not the agent of record for booking 88120 and cannot modify it.", http: status(500), class: classify.Governance, code: classify.CodePermissionDenied, family: "access.not-the-owner"},
		{msg: "Broker 1182 is not the broker of record for policy 77-1120 and cannot change it.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.not-the-owner"},
		// Windows that open again by themselves, in more languages and shapes.
		{msg: "Bestilling åpner igjen mandag kl. 09.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Les réservations pour la saison d'été ouvriront le 15 mars à 10h.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Der Vorverkauf für die Herbstkurse öffnet am 1. September.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Dnes máme zavřeno. Otevíráme zítra v 9:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Kahvila on suljettu kunnostuksen vuoksi 3.6. asti.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Returns will be processed again from 5 January.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "The museum is expected to reopen on 12 May.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		// Stops for the weather, in more shapes.
		{msg: "All flights are suspended due to a cyclone warning.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "El puerto está cerrado por temporal.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "Z důvodu větru je lanovka mimo provoz.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "台風の影響で運航を見合わせています。天候が回復し次第再開します。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		// A device last seen a while ago (Dutch, German); a record another user edits (Dutch).
		{msg: "Apparaat reageert niet. Laatst gezien: 40 minuten geleden.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Terminal nicht erreichbar, zuletzt gesehen vor 2 Stunden.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		{msg: "Dit dossier wordt bewerkt door een andere gebruiker.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		// Bookings that come back or open on a date (Arabic, Spanish, Italian, German); a slot code.
		{msg: "المتجر مغلق حالياً للجرد، ويعود البيع غداً الساعة 9 صباحاً.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Las inscripciones para el curso de otoño se abrirán el 1 de septiembre.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Le prenotazioni riaprono lunedì alle 9:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Die Bestellung wird am Montag wieder freigeschaltet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Booking failed: APPOINTMENT_SLOT_TAKEN", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken"},
		// A later or value date to choose; an amount under a bound (Polish), also under a 500.
		{msg: "Payments after 5 PM are processed the next working day. Please choose a later date.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.choose-later-date"},
		{msg: "Błąd 500: Kwota przelewu nie może być mniejsza niż 10 zł.", http: status(500), class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.choose-later-date"},
		// No dealer for a postcode (English, German, Czech, Turkish); a desk closed now that says when it opens;
		// late submissions; a device last seen a time ago (French).
		{msg: "No approved installer covers your postcode yet.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Für Ihre Postleitzahl ist leider kein Servicepartner zuständig.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Pro vaše PSČ nemáme žádného montážního partnera.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Adresinizde yetkili servis bulunmamaktadır.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "The helpline is closed right now. We're open daily from 9am to 6pm.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Kundtjänst är stängd. Vi öppnar igen kl. 08:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "The bid deadline has passed. Late bids will not be accepted.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.late-submissions"},
		{msg: "Capteur hors ligne, vu pour la dernière fois il y a 15 min.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline"},
		// Services not offered at a postcode or town (Swedish, Finnish, French, Korean); today's reception over
		// until the next business day (Japanese); the last day to apply passed (Swedish); an upgrade asked for (Turkish).
		{msg: "Vi levererar tyvärr inte till ditt postnummer.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Emme valitettavasti toimita vielä paikkakunnallasi sijaitseviin osoitteisiin.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "Désolé, nous ne livrons pas encore votre commune.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "고객님의 지역은 당일배송이 불가능한 지역입니다.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area"},
		{msg: "本日の受付は終了しました。明日10時以降に改めてお申し込みください。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Sista ansökningsdagen för utbildningen har passerat.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.late-submissions"},
		{msg: "Bu özellik için lütfen planınızı yükseltin.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.upgrade-plan"},
		{msg: "Bookings are not available online today. Please try again tomorrow.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.try-again-tomorrow"},
		{msg: "The pool is closed today for maintenance. Please try again tomorrow.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: ""},
		// Closed now, in other words (Czech, German, Japanese, French); a record changed concurrently (German);
		// a payment to approve in an app.
		{msg: "Momentálně jsme mimo provozní dobu. Ozveme se vám zítra.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Wir sind gerade geschlossen. Bestellungen sind ab morgen 9 Uhr wieder möglich.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "本日の営業は終了しました。またのご利用をお待ちしております。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Le guichet est fermé. Il est ouvert du mardi au samedi.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Der Datensatz wurde zwischenzeitlich bearbeitet. Bitte noch einmal versuchen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.changed-concurrently"},
		{msg: "The transfer is on hold until you approve the transaction in your Swish app.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.approve-in-app"},
		{msg: "Os resultados ainda não estão disponíveis. Volte mais tarde.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.results-not-released"},
		{msg: "Biuro jest zamknięte. Zapraszamy w poniedziałek w godz. 9:00–15:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Inschrijven voor de cursus is mogelijk vanaf 15 januari.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Zgłoszenia nie są już przyjmowane. Lista startowa została zamknięta.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.late-submissions"},
		{msg: "Kasa jest teraz zamknięta. Zapraszamy jutro w godz. 10:00–14:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "Az ügyfélszolgálat jelenleg zárva tart. Nyitvatartás: hétköznap 9–17.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again"},
		{msg: "We are not accepting applications for food stalls at this time as the category is at capacity.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.applications-not-accepted"},
		{msg: "The programme is not currently accepting new registrations.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.applications-not-accepted"},
		{msg: "The evening class is full. You have been added to the waiting list (position 12).", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.full-waiting-list"},
		{msg: "Der Töpferkurs ist belegt. Sie wurden auf die Warteliste gesetzt.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.full-waiting-list"},
		{msg: "Cet atelier est complet. Inscrivez-vous sur la liste d'attente.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.full-waiting-list"},
		{msg: "Enrolment closed on 14 February. Join the waiting list for the summer intake.", class: classify.Governance, code: classify.CodePolicyBlocked, family: ""},
		{msg: "Die Mindestteilnehmerzahl von 6 Personen wurde nicht erreicht. Die Wanderung entfällt.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.minimum-not-reached"},
		{msg: "The minimum number of participants for this departure has not been reached; the trip is cancelled.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.minimum-not-reached"},
		{msg: "Pre-orders for the limited edition have closed.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.orders-closed"},
		{msg: "The bakery is currently closed. It opens daily at 07:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-4"},
		{msg: "Le magasin sélectionné est fermé. Réouverture lundi à 7h30.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-5"},
		{msg: "Le parc est fermé pour la saison hivernale. Réouverture le 5 avril.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-5"},
		{msg: "Die Loipe ist wegen ungenügender Schneelage gesperrt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-2"},
		{msg: "The sledding hill is closed due to lack of snow.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-2"},
		{msg: "Wegens fytosanitaire regelgeving kunnen wij geen zaden leveren naar Zwitserland.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.plant-health-shipping"},
		{msg: "Vi skickar tyvärr inte lökar till Norge eftersom de kräver sundhetscertifikat.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.plant-health-shipping"},
		{msg: "Due to plant health regulations we no longer send bulbs to Northern Ireland.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.plant-health-shipping"},
		{msg: "AADB2C90077: User does not have an existing session and request prompt parameter has a value of 'None'.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families.login-failed-session"},
		{msg: "本日は雨天のため体験教室を中止いたします。", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.event-called-off"},
		{msg: "Die Führung am Samstag wurde leider abgesagt.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.event-called-off"},
		{msg: "This workshop has been cancelled by the organiser.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.event-called-off"},
		{msg: "Credit cards can no longer be used to deposit into betting accounts. Please use a debit card.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.credit-card-gambling-ban"},
		{msg: "All glacier flights are grounded this morning due to low ceilings. We will reassess at noon.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-3"},
		{msg: "Taman ditutup sementara kerana hujan lebat. Sila cuba semula selepas 2 jam.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-3"},
		{msg: "Flugi frestað vegna veðurs. Vinsamlegast reyndu aftur síðar.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-3"},
		{msg: "تم إلغاء الرحلات اليوم بسبب الرياح. يرجى المحاولة غداً.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-3"},
		{msg: "Les visites sont annulées aujourd'hui à cause du verglas. Réessayez demain.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-3"},
		{msg: "The seaplane is grounded for scheduled maintenance. Flights resume on Friday.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-4"},
		{msg: "Aircraft N123AB is grounded for maintenance squawk #88.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.aircraft-grounded"},
		{msg: "Rangen är stängd för säsongen. Den öppnar igen den 1 april.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.season-reopens"},
		{msg: "The campsite is closed for the winter season and reopens in March.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.season-reopens"},
		{msg: "Puisto on suljettu talvikauden ajan. Kausi avataan jälleen huhtikuussa.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.season-reopens"},
		{msg: "This afternoon's reef cruise is cancelled due to high surf advisory. Please check back tomorrow.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-cancelled"},
		{msg: "Salida cancelada hoy por condiciones del mar. Vuelva a consultar mañana.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-cancelled"},
		{msg: "Tá an turas ar ceal inniu mar gheall ar an aimsir. Seiceáil arís amárach.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-cancelled"},
		{msg: "Die Tour ist wegen Sturm abgesagt. Neue Bewertung morgen um 8 Uhr.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-cancelled"},
		{msg: "A loja está encerrada ao domingo. Reabre segunda-feira às 9h30.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-5"},
		{msg: "The quarry is closed on Mondays. Next open day: Tuesday 09:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-5"},
		{msg: "Cave tours are temporarily suspended while the trail is closed by the park service. No reopening date announced.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.closed-no-reopening-date"},
		{msg: "ร้านปิดให้บริการแล้ววันนี้ กรุณาจองใหม่พรุ่งนี้", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-4"},
		{msg: "Le cabinet est fermé pour les vacances. Réouverture le 4 janvier à 8 h.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-5"},
		// A closure that says it opens again, in any language.
		{msg: "A kiválasztott helyszín hétfőnként zárva tart. A foglalási rendszer kedden 12:00-kor nyit újra.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens"},
		{msg: "הפארק סגור לעונת החורף ויפתח מחדש באפריל.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens"},
		{msg: "Die Outdoorstrecke befindet sich in der Winterpause. Ab 1. März sind wieder Buchungen möglich.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens"},
		{msg: "屋外プールの前売券は営業期間外のため販売しておりません。7月1日より販売開始予定です。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens"},
		{msg: "The lido is closed for the winter. The season opens again in May.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens"},
		{msg: "Arena ditutup hari ini. Silakan pesan besok mulai pukul 09.00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens-2"},
		{msg: "This ticket is closed. Reopen it before adding comments.", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "Havnebadet er midlertidigt lukket på grund af forhøjet bakterieindhold i vandet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.temporarily-closed"},
		{msg: "All lanes are in use. You are #4 on the waitlist; estimated wait 25 minutes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.temporarily-closed"},
		{msg: "Pozorování je dnes zrušeno kvůli oblačnosti.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure-2"},
		{msg: "The ferry terminal is closed due to inclement weather.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.weather-closure"},
		{msg: "Camping is at capacity for Saturday 12 April. Please select another date.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.full-choose-another"},
		{msg: "Your ZIP code is on a weather hold for live animals. Select the pickup option or wait until the hold is lifted.", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "Le point de retrait est fermé jusqu'à lundi 10h.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens-2"},
		{msg: "Ce Relais est fermé pour congés jusqu'au 25/08. Veuillez choisir un autre Relais.", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "Wij verzenden momenteel niet naar Rusland vanwege sancties.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.region-legal"},
		{msg: "この商品は輸出規制の対象のため、海外への発送はできません。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.region-legal"},
		{msg: "Удаленный сервер возвратил ошибку: (401) Несанкционированный.", class: classify.Governance, code: classify.CodeAuthRequired, family: "families-intl.remote-server-401"},
		{msg: "本日の来店予約の受付は終了しました。明日9:00以降に再度お試しください。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-6"},
		{msg: "Walk-in list is full for today. The list reopens at noon tomorrow.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.opens-again-6"},
		{msg: "本日の即日配送の受付は終了しました。明日以降の日時を指定してください。", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "Slot unavailable: another booking was confirmed for 15:30 on 12 Dec.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.slot-taken-2"},
		{msg: "Le centre est fermé le dimanche. La prise de rendez-vous en ligne reprend lundi à 8h00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens"},
		{msg: "This branch is closed on Sundays. Collection slots will be available again from Monday 9:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens"},
		{msg: "La sala d'estudi està tancada per vacances d'estiu fins al 24 d'agost.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-reopens-2"},
		{msg: "Der er ingen ledige tider de næste 14 dage. Nye tider frigives hver mandag.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.slots-released"},
		{msg: "No hay turnos disponibles. Se habilitan nuevos turnos el primer día hábil de cada mes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.slots-released"},
		{msg: "Acceso denegado: la IP 198.51.100.4 no está autorizada para esta cuenta.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.allow-list-3"},
		{msg: "Indirizzo IP 203.0.113.9 non autorizzato per questo servizio.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.allow-list-3"},
		{msg: "dial tcp 203.0.113.5:700: TLS handshake timeout", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.handshake-timeout"},
		{msg: "Sesja giełdowa zakończona. Zlecenia będą przyjmowane od 8:30 w kolejnym dniu sesyjnym.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours"},
		{msg: "Η αγορά είναι κλειστή σήμερα. Η διαπραγμάτευση θα συνεχιστεί αύριο στις 10:15.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours"},
		{msg: "Der Fährbetrieb ruht im Winter. Saisonstart ist am 1. April.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.season-reopens"},
		{msg: "Error: this pipeline requires samtools v1.15 or later. Found: samtools v1.9", class: classify.Governance, code: classify.CodeUserActionRequired, family: "buildtools.toolchain-too-old"},
		{msg: "Order rejected: trading in ABC has been suspended by the exchange pending an announcement.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.trading-suspended"},
		{msg: "Η διαπραγμάτευση της μετοχής ανεστάλη με απόφαση του Χρηματιστηρίου.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.trading-suspended"},
		{msg: "The name shop.example is a reserved name and cannot be registered.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.name-reserved"},
		{msg: "Fiskalizacija trenutno nije dostupna. Račun će biti naknadno fiskaliziran.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-south-slavic"},
		{msg: "Kerfið svarar ekki. Reyndu aftur eftir smástund.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-baltic"},
		{msg: "Příliš mnoho dotazů. Dotaz lze opakovat za 60 sekund.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-cs-ro"},
		{msg: "Utente non autorizzato alla gestione dei turni del reparto.", class: classify.Governance, code: classify.CodePermissionDenied, family: "access.permission-it"},
		{msg: "Telecamera ingresso non raggiungibile da 5 minuti.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.unreachable-intl"},
		{msg: "Borne de recharge injoignable depuis 10 min.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.unreachable-intl"},
		{msg: "Sensore non raggiungibile via Bluetooth. Avvicinarsi al sensore.", class: classify.Governance, code: classify.CodeUserActionRequired, family: ""},
		{msg: "Invoice transmission failed; it will be resent automatically within the hour.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.delivered-when-back"},
		{msg: "Wysyłka nie powiodła się. Faktura zostanie wysłana ponownie za 5 minut.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.delivered-when-back"},
		{msg: "La location de vélos est fermée pour l'hiver. Retour des vélos le 1er avril.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.season-reopens"},
		{msg: "kafka: client has run out of available brokers to talk to: dial tcp 10.1.2.3:9092: i/o timeout", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "clusters.settling"},
		{msg: "Camera offline. Please check the network connection of the NVR.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device-2"},
		{msg: "网关不在线，请检查路由器的网络连接。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.offline-person-at-device-2"},
		{msg: "Zimmer 12 ist vom 3.–5. Mai bereits durch Buchung 4411 belegt.", class: classify.Capability, code: classify.CodeInvalidInput, family: ""},
		{msg: "The controller is busy with another app connection. Close the other connection and try again.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.close-other-session"},
		{msg: "Calibration failed: room light too bright. Dim the lights and retry.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-check"},
		{msg: "Слишком много сообщений за минуту. Подождите немного.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.rate-limit-eu2-ru-vi-id-ar"},
		{msg: "İlanınız yayın kurallarına aykırı bulunduğu için yayından kaldırıldı.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.content-safety-ru-vi-id"},
		{msg: "โพสต์ของคุณถูกลบเนื่องจากละเมิดนโยบายชุมชน", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-intl.content-safety-ru-vi-id"},
		{msg: "La demande doit être faite dans les 30 jours suivant l'achat. Délai dépassé.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.deadline-passed-nordic-es"},
		{msg: "TLS-kättely aikakatkaistiin yhdistettäessä palvelimeen.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.handshake-timeout"},
		{msg: "The auction is closed today. Next auction: Tuesday 6:00 AM.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours"},
		{msg: "Für Ihre Person liegt ein aktives Stadionverbot vor. Der Kauf von Dauerkarten ist gesperrt.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.stadium-ban"},
		{msg: "EURTRY is in close-only mode. New positions cannot be opened.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.close-only"},
		{msg: "該銘柄は現在、決済注文のみ受け付けています。", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.close-only"},
		{msg: "We are unable to onboard customers resident in the United States.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.residents-not-served"},
		{msg: "Lo sentimos, no ofrecemos servicios a residentes de este país.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.residents-not-served"},
		{msg: "Le niveau d'effet de levier choisi n'est pas autorisé pour votre catégorie de client.", class: classify.Governance, code: classify.CodePolicyBlocked, family: ""},
		{msg: "Effet de levier 1:100 non autorisé pour les clients particuliers.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.leverage-restricted"},
		{msg: "Votre licence a atteint le nombre maximal d'appareils. Retirez-en un depuis votre compte.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.activation-limit"},
		{msg: "Sie haben die maximale Anzahl an Geräten für dieses Abo erreicht.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.activation-limit"},
		{msg: "Piyasa kapalı değil ancak seans kapalı; emirleriniz 10:00'da iletilecek.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours-2"},
		{msg: "Рынок закрыт до 07:00 по московскому времени.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours-2"},
		{msg: "TRADE_RETCODE_REQUOTE: the price moved; send the order again.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.market-hours-2"},
		{msg: "Fehler: Assertion fehlgeschlagen in Modul Druckvorschau (vorschau.cpp:212).", class: classify.Capability, code: classify.CodeInternalError, family: "devtools.crash-localised"},
		{msg: "処理中にエラーが発生しました。例外コード: 0xC0000409", class: classify.Capability, code: classify.CodeInternalError, family: "devtools.crash-localised"},
		{msg: "gimp: error while loading shared libraries: libbabl-0.1.so.0: cannot open shared object file: No such file or directory", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devtools.shared-library-missing"},
		{msg: "SQLSTATE[42S22]: Column not found: 1054 Unknown column 'orders.voucher' in 'field list'", class: classify.Capability, code: classify.CodeInternalError, family: "datastores.pdo-unknown-column"},
		{msg: "Lokalizator nie wysłał pozycji od 45 minut.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-since-3"},
		{msg: "The tracker has not sent its location for 45 minutes. Replace the battery.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.physical-step"},
		{msg: "Waiting for touch on your security key... operation timed out.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.security-key-touch"},
		{msg: "Kein Treffer für \"Quarkspeise\" gefunden.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.no-search-hits"},
		{msg: "Ingen treff for «fjellbjørk» i ordboka.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.no-search-hits"},
		{msg: "您的账户尚未完成实名认证，暂时无法提现。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.verification-zh-ja-ko"},
		{msg: "U staat in de wachtrij. Even geduld, we sturen u door zodra het uw beurt is.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-nl-queue"},
		{msg: "Het is momenteel erg druk. Bevestig eerst dat u geen robot bent.", class: classify.Governance, code: classify.CodeUserActionRequired, family: ""},
		{msg: "ログインにはSMS認証が必要です。届いた認証コードを入力してください。", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.one-time-code-cjk"},
		{msg: "Forbindelsen mislykkedes. Sæt højttaleren i parringstilstand og prøv igen.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.pairing-mode"},
		{msg: "Another client is already connected to the receiver. Only one session is allowed.", class: classify.Capability, code: classify.CodeInvalidInput, family: "families-more.close-other-session"},
		{msg: "Servern startar om. Försök igen om en stund.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.restarting"},
		{msg: "The hub is rebooting after an update; commands are queued.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.restarting"},
		{msg: "Le service de paiement n'a pas répondu dans le délai prévu.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-reset-more"},
		{msg: "Die Verbindung zum Lagerserver wurde zurückgesetzt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-reset-more"},
		{msg: "Tenda bloccata: allarme vento attivo.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-reset-more"},
		{msg: "Jesteś w kolejce do zakupu biletów. Nie zamykaj tej strony.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.in-queue-more"},
		{msg: "Kundeservice er stengt nå. Åpningstid er hverdager 09–15.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.in-queue-more"},
		{msg: "Akumulator jest przegrzany. Odczekaj kilka minut, aż ostygnie.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.cooling-down"},
		{msg: "Battery overheated: the mower resumes once it has cooled down.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.cooling-down"},
		{msg: "Nuestra tienda está cerrada por vacaciones hasta el 8 de enero.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-for-holidays"},
		{msg: "Wegen Betriebsferien werden bis 6. Januar keine Bestellungen versandt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.closed-for-holidays"},
		{msg: "The DMX dongle is in use by another application. Quit the other application and try again.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Die Kamera wird von einer anderen Anwendung verwendet.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Prijava trenutno je zatvorena. Prijave primamo od 8 do 16 sati.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.in-queue-more"},
		{msg: "Klaida: baigėsi atsakymo laukimo laikas.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.busy-baltic"},
		{msg: "Maximaal 12 pallets per levering. Splits de bestelling over twee dagen.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.split-the-request"},
		{msg: "The batch holds 900 rows; the limit is 500. Split it into smaller batches.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.split-the-request"},
		{msg: "Express shipping is not available for PO Boxes.", class: classify.Capability, code: classify.CodeInvalidInput, family: "invalid.po-box-not-served"},
		{msg: "Osoite on jakelualueemme ulkopuolella.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-7"},
		{msg: "A entrega ao domicílio não está disponível na zona de Mértola.", class: classify.Capability, code: classify.CodeCapabilityUnsupported, family: "unsupported.service-area-7"},
		{msg: "Verse mosselen zijn uitverkocht; bestellen kan weer vanaf 15 juli.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "Boutique en pause : reprise des livraisons le 3 mars.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "La venta de abonos se reanudará el 2 de enero.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "Waage 3 antwortet nicht (letzte Meldung vor 12 Min.).", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact-3"},
		{msg: "計量器との通信が切断されています（最終受信 08:15）。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact-3"},
		{msg: "A kérés időtúllépés miatt megszakadt.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-more-2"},
		{msg: "Tidsgränsen överskreds vid anropet till kassan.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-more-2"},
		{msg: "Die bediener is af weens beurtkrag; probeer weer oor 30 minute.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-more-2"},
		{msg: "Bookings paused by load shedding; we expect power back at 16:00.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-more-2"},
		{msg: "La passerelle de paiement n'a pas pu être jointe. Réessayez dans quelques minutes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-more-2"},
		{msg: "Geen klant gevonden met klantnummer 48812.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-nl"},
		{msg: "Er is geen inschrijving gevonden voor dit lidnummer.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-nl"},
		{msg: "Unhandled rejection SyntaxError: Unexpected token < in JSON at position 0\n    at JSON.parse (<anonymous>)", class: classify.Capability, code: classify.CodeInternalError, family: "devtools.unhandled-rejection"},
		{msg: "[Worker] Unhandled promise rejection: RangeError: Invalid time value", class: classify.Capability, code: classify.CodeInternalError, family: "devtools.unhandled-rejection"},
		{msg: "Tilausta numerolla 77812 ei löydy.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-fi-de"},
		{msg: "Das Modell 'Sonata 3' wird nicht mehr angeboten.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-fi-de"},
		{msg: "We cannot send bulbs to Norway: plant health regulations forbid it.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.plant-health-shipping"},
		{msg: "Spedizione non possibile: serve un certificato fitosanitario per questa destinazione.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families-more.plant-health-shipping"},
		{msg: "Le iscrizioni riprenderanno lunedì alle 9.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "Podreu fer comandes a partir de dilluns.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "Server banky neodpověděl včas. Zkuste to znovu.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-more-2"},
		{msg: "Mae'r system yn brysur ar hyn o bryd.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more-2"},
		{msg: "Per daug užklausų. Palaukite minutę.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more-2"},
		{msg: "Tuloksia päivitetään parhaillaan.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more-2"},
		{msg: "灌溉控制器离线，最后上线时间 06:10。", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact-3"},
		{msg: "Die Schnittstelle COM4 ist belegt: ein anderes Programm verwendet sie.", class: classify.Capability, code: classify.CodeInvalidInput, family: "devices.device-held-by-another-app"},
		{msg: "Faktura je uzamčena, protože ji právě upravuje účetní.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "Laufzeitfehler '91': Objektvariable nicht festgelegt", class: classify.Capability, code: classify.CodeInternalError, family: "devtools.crash-localised"},
		{msg: "Membership expired. Renew it to enter sanctioned competitions.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-more.membership-expired"},
		{msg: "Mae'r wefan yn brysur iawn.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more-2"},
		{msg: "Adeegga hadda wuu mashquulsan yahay.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more-2"},
		{msg: "Tizimda vaqtinchalik nosozlik yuz berdi.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.busy-more-2"},
		{msg: "Gateway error: upstream payment service timed out", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.timeout-more-2"},
		{msg: "Ajanvaraus avautuu maanantaina klo 9.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "A rendelés szünetel, a szezon márciusban indul újra.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "Der Shop ist ab dem 3. Januar wieder geöffnet.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.resumes-on-date"},
		{msg: "Butikken har sesongstopp og åpner igjen 1. mai.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "transient.season-reopens"},
		{msg: "Lämpötila-anturi ei vastaa (viimeisin lukema 40 min sitten).", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.offline-last-contact-3"},
		{msg: "Faktura byla mezitím změněna jiným uživatelem.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "families-intl.locked-by-another-user"},
		{msg: "Níl an áirithint ann: ní bhfuarthas uimhir 5512.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-ta-ga-sl"},
		{msg: "Izdelek »Smrekova drva« ni več v ponudbi.", class: classify.Capability, code: classify.CodeResourceNotFound, family: "families-intl.not-found-ta-ga-sl"},
		{msg: "Tageslimit erreicht. Weitere Abfragen sind ab morgen wieder möglich.", class: classify.Governance, code: classify.CodeUserActionRequired, family: "families-intl.daily-limit"},
		// Medicines sold on prescription only.
		{msg: "This medicine is prescription-only and cannot be added to a guest basket.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.prescription-required"},
		{msg: "Produto com receita obrigatória: envie a receita para concluir o pedido.", class: classify.Governance, code: classify.CodePolicyBlocked, family: "families.prescription-required"},
		// SIP callees busy for now; firmware to update; a payment the bank
		// has still to confirm.
		{msg: "INVITE rejected: 486 Busy Here", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.sip-busy"},
		{msg: "call to 2001 ended with 480 Temporarily Unavailable", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.sip-busy"},
		{msg: "Scene not supported by this hub. Please update the hub firmware to 3.2 or later.", http: status(400), class: classify.Governance, code: classify.CodeUserActionRequired, family: "devices.update-firmware"},
		{msg: "Order 5512 is pending payment confirmation; this usually takes a few minutes.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.payment-confirmation-pending"},
		{msg: "Payment is pending confirmation from the bank; the booking is confirmed once it arrives.", class: classify.Reliability, code: classify.CodeRetryableTransient, family: "devices.payment-confirmation-pending"},
	}
	var none *ruleset.Set
	for _, c := range cases {
		in := &classify.Input{Tool: "t", Error: classify.RawError{Message: c.msg, HTTPStatus: c.http}}
		res := none.Classify(in, now)
		if res.Class != c.class || res.Code != c.code {
			t.Errorf("%q: %s/%s by %s, want %s/%s", c.msg, res.Class, res.Code, res.RuleID, c.class, c.code)
			continue
		}
		switch {
		case c.family == "" && res.Pack:
			t.Errorf("%q: decided by pack rule %s, want a generic rule", c.msg, res.RuleID)
		case c.family != "" && (!res.Pack || !strings.HasPrefix(res.RuleID, c.family)):
			t.Errorf("%q: decided by %s, want a %s* pack rule", c.msg, res.RuleID, c.family)
		}
	}
	// Whatever reads it, a place the service does not go is not a wait,
	// nor a budget spent, nor a service not offered abroad.
	for _, msg := range []string{
		"Este restaurante no está disponible en este momento en tu zona",
		"Ce service est actuellement indisponible dans votre pays",
		// A subsidy's budget spent until a stated day is the rule's refusal.
		"Das Förderbudget ist ausgeschöpft. Anträge sind erst wieder ab dem 1. Januar möglich.",
		// Maintenance contracts not offered abroad are no maintenance window.
		"Wij bieden geen onderhoudscontracten aan buiten de Benelux.",
	} {
		res := none.Classify(&classify.Input{Tool: "t", Error: classify.RawError{Message: msg}}, now)
		if res.Retryable || strings.HasPrefix(res.RuleID, "families-intl.busy") {
			t.Errorf("%q: %s/%s retryable=%v by %s, want a permanent reading", msg, res.Class, res.Code, res.Retryable, res.RuleID)
		}
	}
}
