package textmodel

import (
	"strings"
	"unicode"

	"github.com/omcp/toolfailure/internal/literal"
)

// Concepts carry what the corpus teaches in one language to the others.
// The model's words and n-grams are language-bound: a weight learned on
// "permission denied" says nothing about "Zugriff verweigert" or "权限不足"
// unless a case in that language was in training, and most systems a
// deployment meets were not. Each concept below is a handful of stems and
// phrases in the languages error messages are written in; every occurrence
// in the text adds the concept as a feature of its own, so the weight the
// English cases give "deny" also reads the German, Chinese or Korean one.
//
// The lists are general vocabulary, not the corpus's wording: a stem goes
// in when it is how the language says the concept, whatever system uses it.
// A stem matches at the start of a word (its first letter after a space or
// punctuation), except in Chinese and Japanese and in Korean, which glue
// words together and are matched anywhere.
type concept uint8

const (
	conceptDeny concept = iota + 1
	conceptAuth
	conceptExpired
	conceptRate
	conceptQuota
	conceptBilling
	conceptTimeout
	conceptUnavailable
	conceptBusy
	conceptNotFound
	conceptInvalid
	conceptUnsupported
	conceptTooLarge
	conceptBlocked
	conceptConfirm
	conceptNetwork
	conceptException
	conceptInternal
	conceptRetryLater
	conceptDisabled
	conceptInProgress
	conceptExists
	conceptFull
	conceptConflict
	conceptSetup
	conceptContact
	conceptSilent
	conceptCount // not a concept: how many there are, plus one
)

var conceptWords = map[concept][]string{
	conceptDeny: {
		"permission", "forbidden", "denied", "deny", "not allowed", "not permitted", "insufficient privilege",
		"privilege", "access denied", "no access", "disallowed", "refused access",
		"zugriff verweigert", "berechtigung", "nicht berechtigt", "verboten", "keine rechte", "nicht erlaubt", "unzulässig",
		"accès refusé", "interdit", "non autorisé", "droits insuffisants", "refusé",
		"permiso", "acceso denegado", "denegad", "prohibid", "no autorizad", "sin permiso",
		"permissão", "acesso negado", "negad", "proibid", "não autorizad", "sem permissão",
		"permess", "accesso negato", "vietat", "non autorizzat",
		"доступ запрещ", "запрещ", "нет прав", "недостаточно прав", "права доступа", "отказано в доступе", "доступ заборон", "заборон", "немає прав",
		"brak uprawnie", "odmowa dostępu", "uprawnie", "zabronion", "brak dostępu",
		"yetki", "erişim reddedildi", "reddedildi", "yasak", "izin verilmiyor",
		"toegang geweigerd", "geen toestemming", "niet toegestaan", "geen rechten",
		"přístup odepřen", "oprávnění", "zakázán",
		"åtkomst nekad", "behörighet", "nekad",
		"không có quyền", "từ chối truy cập", "quyền truy cập",
		"akses ditolak", "tidak memiliki izin", "tidak diizinkan",
		"acces interzis", "permisiun", "controlul accesului", "control al accesului",
		"غير مصرح", "مرفوض", "صلاحية", "ليس لديك", "אין הרשאה", "הרשאה", "دسترسی", "غیرمجاز",
		"权限", "無權", "无权", "沒有權限", "没有权限", "拒绝访问", "拒絕存取", "禁止访问", "禁止", "權限", "拒绝", "拒絕",
		"アクセス拒否", "許可されていません", "権限がありません",
		"권한", "접근 거부", "거부", "허용되지", "금지",
		// Greek, Hindi, Finnish, Hungarian, Norwegian and Danish, Romanian, Albanian, Kazakh.
		"άρνηση πρόσβασης", "δεν επιτρέπεται", "απαγορεύ", "δικαιώματ", "अनुमति नहीं", "पहुंच अस्वीकृत", "pääsy estetty", "ei oikeuksia", "käyttöoikeu", "ei sallittu", "hozzáférés megtagadva", "nincs jogosultság", "jogosultság", "nem engedélyezett", "tilgang nektet", "ingen tilgang", "adgang nægtet", "ikke tillatt", "ikke tilladt", "acces refuzat", "рұқсат жоқ", "qasja u refuzua", "nuk lejohet",
	},
	conceptAuth: {
		"unauthenticated", "not authenticated", "authentication", "authenticate", "unauthorized", "unauthorised", "login", "log in", "sign in",
		"signed in", "credential", "api key", "apikey", "access key", "token", "password", "passphrase", "invalid key", "session",
		"anmeld", "authentifizier", "passwort", "kennwort", "zugangsdaten", "nicht angemeldet", "schlüssel",
		"authentifi", "identifiant", "mot de passe", "jeton", "clé", "non authentifié",
		"autentica", "contraseña", "credencial", "iniciar sesión", "clave", "sesión",
		"senha", "credenciais", "sessão", "não autenticad",
		"autenticazion", "credenzial", "accedi", "sessione",
		"авториз", "аутентиф", "пароль", "токен", "ключ", "логин", "учетн", "учётн", "сесси", "войдите",
		"uwierzytelni", "hasło", "zaloguj", "logowani", "klucz", "sesja",
		"kimlik doğrulama", "oturum", "şifre", "parola", "anahtar", "giriş yap",
		"authenticatie", "wachtwoord", "inloggen", "sleutel",
		"ověřen", "heslo", "přihlášení", "autentisering", "lösenord", "logga in",
		"xác thực", "đăng nhập", "mật khẩu", "autentikasi", "kata sandi", "sesi",
		"المصادقة", "تسجيل الدخول", "كلمة المرور", "رمز", "אימות", "סיסמה", "احراز هویت", "رمز عبور",
		"认证", "鉴权", "鑑權", "登录", "登陆", "登入", "密码", "密碼", "令牌", "密钥", "金鑰", "签名", "簽名", "授权", "授權", "未授权", "會話", "会话",
		"認証", "ログイン", "パスワード", "トークン", "サインイン", "署名", "セッション",
		"인증", "로그인", "비밀번호", "토큰", "서명", "세션",
		// Greek, Hindi, Finnish, Hungarian, Norwegian and Danish, Romanian, Albanian, Kazakh.
		"πιστοποίηση", "κωδικός πρόσβασης", "प्रमाणीकरण", "पासवर्ड", "tunnistautu", "salasana", "kirjaudu", "hitelesítés", "jelszó", "bejelentkez", "passord", "adgangskode", "logg inn", "log ind", "autentific", "parolă", "fjalëkalim", "құпиясөз",
	},
	conceptExpired: {
		"expired", "expire", "expiry", "expiration", "no longer valid",
		"abgelaufen", "ungültig geworden", "expiré", "caducad", "expirad", "vencid", "scadut", "scadenza",
		"истек", "истёк", "просроч", "срок действия", "wygasł", "wygas", "süresi dol", "süresi geç", "verlopen", "vypršel", "utgått",
		"hết hạn", "kedaluwarsa", "kadaluarsa", "منتهي", "انتهت", "פג תוקף", "منقضی",
		"过期", "過期", "失效", "期限切れ", "有効期限", "失効", "만료",
	},
	conceptRate: {
		"rate limit", "ratelimit", "rate exceeded", "too many request", "too many call", "throttl", "slow down", "requests per", "calls per",
		"zu viele anfragen", "zu viele", "trop de requêtes", "trop de demandes", "demasiadas solicitudes", "demasiadas peticiones",
		"muitas requisições", "muitas solicitações", "troppe richieste", "слишком много запрос", "слишком часто", "частые запрос",
		"zbyt wiele", "zbyt dużo", "çok fazla istek", "te veel verzoeken", "příliš mnoho", "för många",
		"quá nhiều yêu cầu", "terlalu banyak permintaan", "طلبات كثيرة", "יותר מדי בקשות", "درخواست زیاد",
		"频繁", "頻繁", "过于频繁", "限流", "请求过多", "請求過多", "访问太快", "流控",
		"リクエストが多すぎ", "リクエスト数", "レート制限", "요청이 너무 많", "너무 많은 요청", "요청 한도", "호출 한도",
	},
	conceptQuota: {
		"quota", "limit exceeded", "exceeded", "usage limit", "allowance", "cap reached",
		"kontingent", "limit überschritten", "überschritten", "quote", "dépassé", "cuota", "excedid", "superad", "cota", "excedeu", "superat",
		"квот", "лимит", "превышен", "limit", "przekroczon", "kota", "aşıldı", "overschreden", "překročen", "överskrid",
		"hạn mức", "vượt quá", "melebihi", "تجاوز", "חריגה", "سهمیه",
		"配额", "配額", "额度", "額度", "上限", "限额", "用量", "超限", "クォータ", "利用上限", "할당량", "한도",
	},
	conceptBilling: {
		"payment", "billing", "balance", "credit", "insufficient funds", "subscription", "upgrade", "invoice", "paid plan", "trial",
		"zahlung", "guthaben", "abonnement", "rechnung", "paiement", "solde", "facturation", "pago", "saldo", "suscripci", "factura",
		"pagamento", "assinatura", "fatura", "abbonamento", "fattura", "оплат", "баланс", "средств", "подписк", "тариф", "счет",
		"płatnoś", "subskrypcj", "bakiye", "ödeme", "abonelik", "betaling", "tegoed", "platba", "betalning",
		"thanh toán", "số dư", "gói cước", "pembayaran", "langganan", "رصيد", "الدفع", "اشتراك", "תשלום", "پرداخت", "اعتبار",
		"余额", "餘額", "欠费", "欠費", "付费", "付費", "充值", "套餐", "账单", "帳單",
		"残高", "支払", "料金", "プラン", "課金", "잔액", "결제", "요금", "구독", "충전",
	},
	conceptTimeout: {
		"timeout", "timed out", "time out", "deadline exceeded", "took too long",
		"zeitüberschreitung", "zeitlimit", "délai d attente", "délai dépassé", "expiré le délai", "tiempo de espera", "tiempo agotado",
		"tempo limite", "tempo esgotado", "tempo scaduto", "превышено время", "тайм аут", "таймаут", "время ожидания", "истекло время",
		"przekroczono czas", "limit czasu", "zaman aşımı", "time out", "časový limit", "tidsgräns",
		"hết thời gian", "quá thời gian", "waktu habis", "batas waktu", "مهلة", "انتهت المهلة", "זמן קצוב", "مهلت",
		"超时", "逾時", "超時", "タイムアウト", "時間切れ", "시간 초과", "타임아웃", "시간이 초과",
		// Norwegian and Danish, Swedish, Finnish, Hungarian, Romanian, the South Slavic languages, Slovak, Bulgarian, Ukrainian, the Baltic languages,
		// Greek, Catalan, Basque, Icelandic, Welsh, Afrikaans, Malay, Swahili, Hindi, Marathi, Nepali, Bengali, Thai, Georgian, Armenian, Urdu, Kazakh and Kyrgyz.
		"tidsavbrudd", "tidsgrense", "tidsudløb", "tog for lang tid", "tog för lång tid", "aikakatkaisu", "aikaraja ylitt", "időtúllépés", "időkorlát",
		"timpul de așteptare", "timp expirat", "a expirat timpul", "isteklo vrijeme", "isteklo je vreme", "vremensko ograničenje", "časovna omejitev",
		"vypršal", "времето за изчакване", "изтече времето", "час очікування", "минув час", "noildze", "laika limits", "baigėsi laikas",
		"skirtasis laikas", "ajalõpp", "λήξη χρόνου", "χρονικό όριο", "temps d espera", "temps esgotat", "denbora muga", "itxaron denbora", "tímamörk",
		"terfyn amser", "tydsverloop", "tamat masa", "muda umeisha", "muda wa kusubiri", "समय सीमा समाप्त", "टाइमआउट", "वेळ संपली", "समय सकियो",
		"সময় শেষ", "টাইমআউট", "หมดเวลา", "დრო ამოიწურა", "ժամանակը սպառվել", "وقت ختم", "күту уақыты", "күтүү убактысы",
	},
	conceptUnavailable: {
		"unavailable", "not available", "maintenance", "temporarily", "service down", "outage", "offline",
		"nicht verfügbar", "wartung", "vorübergehend", "indisponible", "temporairement", "no disponible", "mantenimiento",
		"temporalmente", "indisponível", "manutenção", "temporariamente", "non disponibile", "manutenzione", "temporaneamente",
		"недоступ", "технически", "техническ", "временно", "niedostępn", "tymczasowo", "konserwacj", "przerwa techniczna",
		"kullanılamıyor", "bakım", "geçici", "niet beschikbaar", "onderhoud", "tijdelijk", "nedostupn", "dočasně", "otillgänglig", "tillfälligt",
		"bảo trì", "tạm thời", "không khả dụng", "pemeliharaan", "sementara", "tidak tersedia", "غير متاح", "صيانة", "مؤقت", "לא זמין", "תחזוקה", "در دسترس نیست", "موقت", "chwilowo",
		"不可用", "维护", "維護", "暂时", "暫時", "暂停服务", "服务不可用", "服務無法使用",
		"メンテナンス", "一時的", "利用できません", "停止中", "점검", "일시적", "사용할 수 없", "이용할 수 없",
		// Greek, Hindi, Finnish, Hungarian, Norwegian and Danish, Romanian, Albanian, Kazakh.
		"μη διαθέσιμ", "συντήρηση", "προσωρινά", "उपलब्ध नहीं", "अनुपलब्ध", "रखरखाव", "ei käytettävissä", "tilapäisesti", "nem elérhető", "karbantartás", "ideiglenesen", "utilgjengelig", "midlertidig", "vedlikehold", "ikke tilgængelig", "indisponibil", "mentenanță", "përkohësisht", "қолжетімсіз", "уақытша",
		// Danish, Icelandic, the South Slavic languages, Slovak and Czech, Bulgarian, Ukrainian and Macedonian, the Baltic languages, Catalan, Basque,
		// Irish, Welsh, Luxembourgish and German, Afrikaans, Maltese, Swahili, Amharic, Armenian, Georgian, Kyrgyz, Tajik, Urdu, Bengali, Nepali,
		// Marathi, Hindi, Thai, Malay, Tagalog, Malayalam, Tamil, Hebrew and Arabic.
		"utilgængelig", "ikke tiltæk", "tímabundið", "viðhald", "nedostupan", "nedostupna", "privremeno", "održavanj", "недоступан", "привремено",
		"одржавањ", "ni na voljo", "začasno", "vzdrževanj", "ni dosegljiv", "dočasne", "údržb", "недостъп", "поддръжка", "тимчасово", "технічн",
		"недостапн", "nav pieejam", "īslaicīgi", "apkope", "nepasiekiam", "laikinai", "neprieinam", "pole saadaval", "ajutiselt", "hooldus",
		"ei ole kättesaadav", "temporalment", "manteniment", "ez dago erabilgarri", "aldi baterako", "mantentze", "níl ar fáil", "go sealadach",
		"ddim ar gael", "dros dro", "cynnal a chadw", "nicht erreichbar", "net erreechbar", "momentan net", "nie beskikbaar", "tydelik",
		"mhux disponibbli", "temporanjament", "haipatikani", "kwa muda", "matengenezo", "አይገኝም", "ለጊዜው", "հասանելի չէ", "ժամանակավորապես", "მიუწვდომელია",
		"დროებით", "жеткиликсиз", "убактылуу", "дастнорас", "муваққатан", "دستیاب نہیں", "عارضی", "উপলব্ধ নয়", "অস্থায়ী", "রক্ষণাবেক্ষণ", "उपलब्ध छैन",
		"अस्थायी", "उपलब्ध नाही", "तात्पुरते", "ไม่พร้อมใช้งาน", "ชั่วคราว", "ปิดปรับปรุง", "penyelenggaraan", "pansamantala", "ലഭ്യമല്ല", "கிடைக்கவில்லை",
		"זמנית", "غير متوفر",
	},
	conceptBusy: {
		"busy", "overload", "capacity", "congest", "saturat", "high demand", "heavy load",
		"überlastet", "ausgelastet", "surcharg", "occupé", "sobrecarg", "ocupad", "sovraccaric", "occupat",
		"перегруж", "занят", "нагрузк", "przeciążon", "zajęt", "meşgul", "yoğun", "overbelast", "bezet", "přetížen", "överbelast",
		"quá tải", "bận", "sibuk", "kelebihan beban", "مشغول", "ضغط", "עומס", "شلوغ",
		"繁忙", "忙碌", "拥挤", "擁擠", "过载", "過載", "混雑", "過負荷", "ビジー", "混み合", "혼잡", "과부하", "사용량이 많",
		// Danish and Norwegian, Swedish, Finnish, Hungarian, Romanian, the South Slavic languages, Slovak, Bulgarian, Ukrainian, the Baltic languages,
		// Greek, Catalan, Basque, Icelandic, Welsh, Irish, Luxembourgish, Afrikaans, Swahili, Kazakh, Kyrgyz, Georgian, Armenian, Hindi, Bengali,
		// Thai, Tagalog, Mongolian, Amharic and Urdu.
		"optaget", "opptatt", "upptagen", "ruuhka", "kuormitet", "túlterhel", "foglalt", "supraîncărcat", "supraincarcat", "preopterećen",
		"zauzet", "preobremenjen", "zaseden", "preťažen", "obsaden", "претоварен", "зает", "перевантаж", "зайнят", "pārslogot", "aizņemt", "perkraut",
		"užimt", "ülekoormatud", "hõivatud", "υπερφόρτω", "απασχολημέν", "sobrecarregat", "ocupat", "gainezka", "lanpetuta", "upptekin", "álag", "prysur",
		"gnóthach", "iwwerlaascht", "besig", "oorlaai", "shughuli nyingi", "шамадан тыс жүктел", "ашыкча жүктөл", "გადატვირთულ", "დაკავებულ",
		"ծանրաբեռնված", "զբաղված", "व्यस्त", "अतिभार", "ব্যস্ত", "ไม่ว่าง", "โหลดสูง", "abala", "ачаалал", "ተጨናንቋል", "مصروف",
	},
	conceptNotFound: {
		"not found", "does not exist", "doesn t exist", "do not exist", "no such", "unknown", "cannot find", "could not find", "couldn t find",
		"not exist", "no longer exists", "missing resource", "nonexistent", "non existent",
		"nicht gefunden", "existiert nicht", "unbekannt", "nicht vorhanden", "introuvable", "n existe pas", "inexistant", "non trouvé", "inconnu",
		"no encontrad", "no existe", "desconocid", "não encontrad", "não existe", "inexistente", "desconhecid", "non trovat", "non esiste", "sconosciut",
		"не найден", "не существует", "неизвестн", "не удалось найти", "nie znaleziono", "nie istnieje", "nieznan",
		"bulunamadı", "mevcut değil", "bilinmeyen", "niet gevonden", "bestaat niet", "onbekend", "nenalezen", "neexistuje", "hittades inte", "finns inte",
		"không tìm thấy", "không tồn tại", "tidak ditemukan", "tidak ada", "غير موجود", "لم يتم العثور", "לא נמצא", "یافت نشد", "وجود ندارد",
		"不存在", "未找到", "找不到", "查无", "查無", "无此", "無此", "没有找到", "未知",
		"見つかりません", "存在しません", "見つからない", "찾을 수 없", "존재하지 않", "없는",
		// Greek, Hindi, Finnish, Hungarian, Norwegian and Danish, Romanian, Albanian, Kazakh.
		"δεν βρέθηκε", "δεν υπάρχει", "नहीं मिला", "नहीं मिली", "मौजूद नहीं", "ei löytynyt", "ei löydy", "ei ole olemassa", "tuntematon", "nem található", "nem létezik", "ismeretlen", "ikke funnet", "finnes ikke", "ikke fundet", "findes ikke", "ukjent", "ukendt", "nu a fost găsit", "nu există", "necunoscut", "nuk u gjet", "nuk ekziston", "nuk gjendet", "табылмады",
	},
	conceptInvalid: {
		"invalid", "malformed", "must be", "required", "missing", "bad request", "parse", "syntax", "not valid", "wrong format", "expected",
		"ungültig", "fehlerhaft", "erforderlich", "fehlt", "falsch", "invalide", "incorrect", "requis", "obligatoire", "manquant", "non valide",
		"inválid", "incorrect", "obligatori", "requerid", "falta", "obrigatóri", "ausente", "non valid", "mancant", "errat",
		"неверн", "некорректн", "недопустим", "обязательн", "отсутствует", "неправильн", "недействительн",
		"nieprawidłow", "wymagan", "niepoprawn", "geçersiz", "zorunlu", "eksik", "hatalı", "ongeldig", "verplicht", "ontbreekt",
		"neplatn", "povinn", "ogiltig", "obligatorisk", "saknas",
		"không hợp lệ", "bắt buộc", "thiếu", "tidak valid", "wajib", "tidak sah", "غير صالح", "مطلوب", "غير صحيح", "לא חוקי", "שגוי", "نامعتبر", "الزامی",
		"无效", "無效", "错误的", "錯誤的", "参数", "參數", "不合法", "非法", "格式", "必填", "缺少", "不能为空", "不正确", "有误",
		"不正", "無効", "必須", "パラメータ", "形式", "正しくありません", "유효하지 않", "잘못된", "필수", "파라미터", "형식", "올바르지 않",
		// Greek, Hindi, Finnish, Hungarian, Norwegian and Danish, Romanian, Albanian, Kazakh.
		"μη έγκυρ", "άκυρ", "απαιτείται", "अमान्य", "आवश्यक है", "virheellinen", "pakollinen", "puuttuu", "érvénytelen", "kötelező", "hiányzik", "hibás", "ugyldig", "påkrevd", "påkrævet", "mangler", "obligatoriu", "lipsește", "i pavlefshëm", "e pavlefshme", "mungon", "жарамсыз",
	},
	conceptUnsupported: {
		"not supported", "unsupported", "not implemented", "unimplemented", "no support", "not available for", "cannot be used with",
		"nicht unterstützt", "wird nicht unterstützt", "non supporté", "non pris en charge", "no soportad", "no compatible", "no admitid",
		"não suportad", "não é suportad", "não compatível", "non supportat", "non è support", "не поддерживается", "не реализован",
		"nie jest obsługiwan", "nieobsługiwan", "desteklenmiyor", "niet ondersteund", "není podporován", "stöds inte",
		"không hỗ trợ", "tidak didukung", "غير مدعوم", "לא נתמך", "پشتیبانی نمی",
		"不支持", "不支援", "暂不支持", "未实现", "サポートされていません", "未対応", "対応していません", "지원되지 않", "지원하지 않",
		// Greek, Hindi, Finnish, Hungarian, Norwegian and Danish, Romanian, Albanian, Kazakh.
		"δεν υποστηρίζεται", "समर्थित नहीं", "असमर्थित", "ei tuettu", "ei tueta", "nem támogatott", "støttes ikke", "understøttes ikke", "nu este suportat", "neacceptat", "nuk mbështetet", "қолдау көрсетілмейді",
	},
	conceptTooLarge: {
		"too large", "too long", "too big", "exceeds the maximum", "maximum size", "max size", "payload size", "too many items", "length exceeds",
		"zu groß", "zu lang", "trop grand", "trop volumineu", "trop long", "demasiado grande", "demasiado larg", "muito grande", "muito long",
		"troppo grand", "troppo lung", "слишком больш", "слишком длин", "превышает максим", "za duż", "za dług", "çok büyük", "çok uzun",
		"te groot", "te lang", "příliš velk", "för stor", "quá lớn", "quá dài", "terlalu besar", "terlalu panjang", "كبير جدا", "גדול מדי", "بیش از حد",
		"过大", "太大", "过长", "太长", "超过最大", "超出最大", "過大", "大きすぎ", "長すぎ", "너무 큽", "너무 깁", "최대 크기",
	},
	conceptBlocked: {
		"blocked", "banned", "suspended", "policy", "violat", "moderation", "flagged", "prohibited content", "restricted", "blacklist", "denylist",
		"gesperrt", "blockiert", "richtlinie", "bloqué", "suspendu", "politique", "bloquead", "suspendid", "política", "bloccat", "sospes",
		"заблокир", "блокир", "политик", "нарушен", "zablokowan", "zawieszon", "engellendi", "askıya", "ihlal", "geblokkeerd", "zablokován",
		"bị chặn", "vi phạm", "bị khóa", "diblokir", "ditangguhkan", "محظور", "حظر", "חסום", "مسدود",
		"封禁", "封号", "屏蔽", "拦截", "攔截", "违规", "違規", "违反", "风控", "風控", "冻结", "凍結", "黑名单", "敏感",
		"ブロック", "凍結", "規約", "違反", "制限されて", "차단", "정지", "위반", "제한된",
	},
	conceptConfirm: {
		"verify", "verification", "confirm", "consent", "accept the terms", "two factor", "2fa", "mfa", "approve", "approval", "captcha",
		"bestätig", "verifizier", "zustimm", "genehmig", "vérifi", "valider", "consentement", "approbation",
		"confirma", "verifica", "aceptar", "aprobaci", "verifique", "aprovaç", "conferm", "approvazion",
		"подтверд", "соглас", "верифик", "potwierdź", "potwierdzeni", "weryfik", "doğrula", "onay",
		"bevestig", "goedkeur", "potvrď", "bekräfta", "xác nhận", "xác minh", "verifikasi", "konfirmasi", "persetujuan",
		"تأكيد", "التحقق", "אישור", "تایید",
		"验证", "驗證", "确认", "確認", "同意", "实名", "實名", "审核", "審核", "承認", "認証コード", "확인", "승인", "동의",
	},
	conceptNetwork: {
		"connection refused", "connection reset", "connection closed", "network", "unreachable", "could not connect", "econnrefused", "econnreset",
		"socket", "dns", "host not found", "broken pipe",
		"verbindung", "netzwerk", "connexion", "réseau", "conexión", "conexão", "connessione",
		"соединени", "подключени", "сеть", "сети", "połączeni", "sieć", "bağlantı", "verbinding", "netwerk", "připojení", "anslutning",
		"kết nối", "mạng", "koneksi", "jaringan", "الاتصال", "الشبكة", "חיבור", "רשת", "اتصال", "شبکه",
		"连接", "連接", "连线", "連線", "网络", "網路", "網絡", "接続", "ネットワーク", "通信", "연결", "네트워크", "통신",
	},
	conceptException: {
		"exception", "traceback", "panic", "stack trace", "stacktrace", "nullpointer", "null pointer", "nil pointer", "undefined", "segmentation",
		"assertion", "unhandled", "uncaught", "typeerror", "keyerror", "attributeerror", "indexerror", "zerodivision", "referenceerror", "goroutine",
		"ausnahme", "excepción", "exceção", "eccezione", "исключени", "wyjątek", "istisna", "uitzondering", "výjimk", "undantag",
		"ngoại lệ", "pengecualian", "استثناء", "חריגה", "استثنا",
		"异常", "異常", "例外", "예외",
	},
	conceptInternal: {
		"internal error", "internal server error", "server error", "system error", "unexpected error", "something went wrong", "unknown error",
		"interner fehler", "serverfehler", "systemfehler", "erreur interne", "erreur serveur", "erreur système", "error interno", "error del servidor",
		"erro interno", "erro no servidor", "errore interno", "errore del server", "внутренняя ошибка", "ошибка сервера", "системная ошибка",
		"błąd wewnętrzny", "błąd serwera", "iç hata", "sunucu hatası", "sistem hatası", "interne fout", "serverfout", "interní chyba", "internt fel",
		"lỗi hệ thống", "lỗi máy chủ", "kesalahan internal", "kesalahan server", "خطأ داخلي", "خطأ في الخادم", "שגיאה פנימית", "خطای داخلی",
		"系统错误", "系統錯誤", "系统异常", "系統異常", "内部错误", "內部錯誤", "服务器错误", "伺服器錯誤", "服务异常", "服務異常", "未知错误",
		"システムエラー", "内部エラー", "サーバーエラー", "予期しないエラー", "시스템 오류", "내부 오류", "서버 오류", "알 수 없는 오류",
	},
	conceptRetryLater: {
		"try again", "retry", "again later", "later", "please wait", "wait a moment",
		"erneut", "später", "réessay", "plus tard", "reintent", "intente de nuevo", "más tarde", "tente novamente", "mais tarde", "riprova", "più tardi",
		"повтор", "попробуйте", "позже", "ponów", "spróbuj", "później", "tekrar dene", "daha sonra", "opnieuw", "later opnieuw", "zkuste", "později",
		"försök igen", "senare", "thử lại", "coba lagi", "nanti", "لاحقا", "حاول مرة", "נסה שוב", "מאוחר יותר", "دوباره", "بعدا", "صبر کنید", "مجدد",
		"重试", "重試", "再试", "再試", "稍后", "稍後", "请稍", "請稍", "再試行", "もう一度", "しばらく", "後ほど", "時間をおいて", "다시 시도", "잠시 후", "나중에",
		// Greek, Hindi, Finnish, Hungarian, Norwegian and Danish, Romanian, Albanian, Kazakh.
		"δοκιμάστε ξανά", "αργότερα", "फिर से प्रयास", "बाद में", "yritä uudelleen", "myöhemmin", "próbálja újra", "később", "prøv igjen", "prøv igen", "încercați din nou", "mai târziu", "provoni përsëri", "më vonë", "кейінірек",
		// Icelandic and Faroese, Croatian, Serbian and Slovenian, the Baltic languages, Bulgarian and Ukrainian, Slovak,
		// Catalan, Swahili, Malay, Tagalog and Thai.
		"reyndu aftur", "royn aftur", "síðar", "pokušajte ponovno", "pokušajte ponovo", "kasnije", "poskusite znova", "pozneje",
		"proovige uuesti", "hiljem", "mēģiniet vēlreiz", "vēlāk", "bandykite dar", "vėliau", "опитайте отново", "по-късно", "спробуйте",
		"пізніше", "skúste", "neskôr", "torneu-ho a provar", "més tard", "jaribu tena", "baadaye", "cuba lagi", "subukan muli", "subukang muli",
		"ลองใหม่", "ภายหลัง",
		// Lao, Khmer and Burmese (written without spaces, so with the "please" that starts the phrase), Mongolian,
		// Amharic, Urdu, Bengali, Nepali, Tamil and Sinhala.
		"ກະລຸນາລອງໃໝ່", "ລອງໃໝ່", "សូមព្យាយាមម្តងទៀត", "ព្យាយាមម្តងទៀត", "ထပ်မံကြိုးစား", "дахин оролд",
		"እንደገና ይሞክሩ", "دوبارہ کوشش", "بعد میں", "আবার চেষ্টা", "পরে আবার", "फेरि प्रयास", "மீண்டும் முயற்சி", "பின்னர்", "නැවත උත්සාහ",
		// Somali, Uzbek, Welsh, Marathi and Quechua.
		"isku day mar kale", "qayta urin", "keyinroq", "rhowch gynnig arall", "pryd arall", "पुन्हा प्रयत्न", "थोड्या वेळाने", "huk kutitawan",
		// Luxembourgish, Kinyarwanda, Georgian, Armenian, Irish, Hausa, Maori, Afrikaans, Catalan, Basque, Galician, Maltese, Tajik, Kyrgyz,
		// Macedonian and Serbian, Shona, Zulu and Xhosa, Igbo, Malagasy, Telugu, Kannada, Malayalam, Gujarati, Punjabi and Azerbaijani;
		// and a service that says when it will be back.
		"probéiert", "spéider", "ongera ugerageze", "nyuma y iminota", "სცადეთ მოგვიანებით", "კიდევ სცადეთ", "ხელახლა სცადეთ", "փորձեք ավելի ուշ",
		"կրկին փորձեք", "bain triail eile", "ar ball", "sake gwadawa", "ngana anō", "ā muri ake", "probeer weer", "later weer", "torna ho a provar",
		"tornarà a intentar", "saiatu berriro", "geroago", "inténtao de novo", "máis tarde", "erġa pprova", "aktar tard", "баъдтар", "дубора кӯшиш",
		"кайра аракет", "кийинчерээк", "обидете се повторно", "подоцна", "покушајте поново", "касније", "edza zvakare", "zama futhi", "zama kwakhona",
		"kamuva", "nwaa ọzọ", "andramo indray", "మళ్లీ ప్రయత్నించ", "ಮತ್ತೆ ಪ್ರಯತ್ನಿಸಿ", "വീണ്ടും ശ്രമിക്കുക", "ફરી પ્રયાસ", "ਦੁਬਾਰਾ ਕੋਸ਼ਿਸ਼",
		"yenidən cəhd", "back online", "reopens", "will resume", "wieder möglich", "wieder verfügbar", "reprendra", "se reanudará", "será restablecid",
		"sarà di nuovo", "weer mogelijk", "igen tilgængelig", "igjen tilgjengelig", "jälleen", "újra elérhető", "ponownie dostępn", "znovu dostupn",
	},
	conceptDisabled: {
		"disabled", "not enabled", "deactivated", "inactive", "turned off", "not activated", "not configured",
		"deaktiviert", "nicht aktiviert", "désactivé", "non activé", "deshabilitad", "desactivad", "no habilitad", "desativad", "disabilitat", "non attiv",
		"отключен", "выключен", "не активирован", "wyłączon", "nieaktywn", "devre dışı", "etkin değil", "uitgeschakeld", "vypnut", "inaktiverad",
		"vô hiệu", "chưa kích hoạt", "dinonaktifkan", "tidak aktif", "معطل", "מושבת", "غیرفعال",
		"未开通", "未開通", "未启用", "未啟用", "禁用", "已停用", "未开启", "無効化", "有効になっていません", "비활성", "사용 중지",
	},
	conceptInProgress: {
		"in progress", "pending", "not ready", "processing", "being processed", "still running", "not yet",
		"wird bearbeitet", "in bearbeitung", "noch nicht", "en cours", "pas encore", "en proceso", "en curso", "todavía no", "aún no",
		"em andamento", "em processamento", "ainda não", "in corso", "non ancora", "в процессе", "обрабатыва", "ещё не", "еще не",
		"w toku", "jeszcze nie", "devam ediyor", "henüz", "bezig", "nog niet", "probíhá", "pågår",
		"đang xử lý", "đang được xử lý", "chưa", "sedang diproses", "belum", "قيد المعالجة", "בתהליך", "در حال پردازش",
		"处理中", "處理中", "进行中", "進行中", "尚未", "処理中", "準備中", "まだ", "처리 중", "진행 중", "아직",
		"처리중", "진행중", "준비 중", "준비중", "생성 중", "생성중", "准备中", "生成中", "正在生成", "正在处理",
	},
	conceptExists: {
		"already exists", "duplicate", "already", "exists",
		"existiert bereits", "bereits", "existe déjà", "déjà", "ya existe", "duplicad", "já existe", "esiste già", "già", "duplicat",
		"уже существует", "уже", "дублик", "już istnieje", "już", "zaten", "bestaat al", "již existuje", "finns redan",
		"đã tồn tại", "trùng", "sudah ada", "duplikat", "موجود بالفعل", "כבר קיים", "تکراری",
		"已存在", "已經存在", "重复", "重複", "既に存在", "すでに", "重複して", "이미 존재", "중복", "이미",
	},
	conceptFull: {
		"disk full", "no space", "out of space", "storage full", "out of memory", "insufficient storage", "quota full",
		"speicher voll", "kein speicherplatz", "espace insuffisant", "plus d espace", "sin espacio", "espacio insuficiente", "sem espaço",
		"spazio insufficiente", "нет места", "недостаточно места", "недостаточно памяти", "brak miejsca", "yer yok", "yetersiz alan",
		"geen ruimte", "nedostatek místa", "utrymme", "hết dung lượng", "ruang penyimpanan penuh", "لا توجد مساحة", "אין מקום", "فضای کافی",
		"空间不足", "空間不足", "磁盘已满", "存储已满", "内存不足", "記憶體不足", "容量不足", "ディスク容量", "メモリ不足", "공간이 부족", "메모리 부족",
	},
	conceptConflict: {
		"conflict", "locked", "lock", "in use", "concurrent", "modified by another", "version mismatch",
		"konflikt", "wird verwendet", "conflit", "verrouill", "en cours d utilisation", "conflicto", "bloqueado por", "en uso", "conflito", "em uso",
		"conflitto", "in uso", "конфликт", "используется", "zablokowany przez", "w użyciu", "çakışma", "kullanımda", "in gebruik", "používá", "används",
		"xung đột", "đang được sử dụng", "konflik", "sedang digunakan", "تعارض", "قيد الاستخدام", "התנגשות", "در حال استفاده",
		"冲突", "衝突", "锁定", "鎖定", "被占用", "正在使用", "競合", "ロック", "使用中", "충돌", "잠금", "사용 중",
	},
	// A step someone must take on the system before the call can work:
	// set it up, install, activate, link an account, register.
	conceptSetup: {
		"configure", "set up", "setup", "install", "activate", "link your", "connect your", "register", "onboarding",
		"konfigurier", "einrichten", "richten sie", "installier", "aktivier", "verknüpf", "registrier",
		"configurez", "configurer", "installez", "installer", "activez", "activer", "paramétr", "associez", "inscri",
		"configurar", "configure su", "instalar", "instale", "activar", "active su", "vincular", "vincule", "registrar", "regístre",
		"ativar", "ative", "cadastr", "vinculad", "configurare", "configura", "installare", "installa", "attivare", "attiva", "collega",
		"настро", "установит", "установите", "активир", "подключит", "зарегистрир", "налашту", "встановіть", "активуй",
		"skonfiguruj", "zainstaluj", "aktywuj", "zarejestruj", "yapılandır", "kurulum", "yükleyin", "etkinleştir", "kaydol",
		"configureer", "installeer", "activeer", "instellen", "koppel", "nakonfigurujte", "nainstalujte", "aktivujte",
		"konfigurera", "installera", "aktivera", "cấu hình", "cài đặt", "kích hoạt", "đăng ký", "konfigurasikan", "instal", "aktifkan", "daftar",
		"تكوين", "تثبيت", "تفعيل", "إعداد", "قم بتثبيت", "הגדר", "התקן", "הפעל", "پیکربندی", "نصب کنید", "فعال کنید",
		"配置", "安装", "激活", "开通", "绑定", "設定", "安裝", "開通", "綁定", "启用", "啟用", "注册", "註冊",
		"インストール", "有効化", "有効にして", "登録して", "連携", "설치", "활성화", "등록", "연동",
		"कॉन्फ़िगर", "इंस्टॉल", "सक्रिय करें",
	},
	// A person to turn to: an administrator, the support desk.
	conceptContact: {
		"contact", "administrator", "admin", "support team", "helpdesk", "help desk", "customer service",
		"kontaktieren", "wenden sie sich", "ihren administrator", "contactez", "contacter", "administrateur", "service client",
		"póngase en contacto", "contacte", "contacta", "administrador", "soporte", "entre em contato", "fale com", "suporte",
		"contatta", "contattare", "amministratore", "assistenza", "обратитесь", "свяжитесь", "администратор", "поддержк", "зверніться",
		"skontaktuj", "iletişime geç", "yönetici", "destek", "neem contact", "beheerder", "kontaktujte", "správce",
		"kontakta", "liên hệ", "quản trị viên", "hubungi", "admin anda", "اتصل", "تواصل", "مسؤول", "הצור קשר", "צור קשר", "מנהל המערכת",
		"تماس بگیرید", "مدیر سیستم", "联系", "聯繫", "聯絡", "管理员", "管理員", "客服", "お問い合わせ", "管理者", "サポート", "문의", "관리자", "고객센터",
		"संपर्क करें", "व्यवस्थापक",
	},
	// A device or system that stopped answering or reporting: not
	// responding, offline, last seen or last contact at a time.
	conceptSilent: {
		"not responding", "does not respond", "doesn t respond", "no response from", "last seen", "last contact", "last heard", "last reported",
		"stopped reporting", "not reported since", "no heartbeat", "no signal", "lost contact", "antwortet nicht", "keine antwort", "zuletzt gesehen",
		"letzter kontakt", "letzte verbindung", "letzte meldung", "meldet sich nicht", "kein signal", "nicht verbunden", "ne répond pas", "aucune réponse",
		"dernier contact", "dernière connexion", "vu pour la dernière", "aucun signal", "hors ligne", "no responde", "sin respuesta", "último contacto",
		"última conexión", "visto por última", "sin señal", "sin comunicación", "fuera de línea", "não responde", "sem resposta", "último contato",
		"última conexão", "sem comunicação", "sem sinal", "fora de linha", "non risponde", "nessuna risposta", "ultimo contatto", "ultima connessione",
		"nessun segnale", "non in linea", "reageert niet", "geen reactie", "laatst gezien", "laatste contact", "meldt zich niet", "geen signaal",
		"svarar inte", "senast sedd", "senaste kontakt", "svarer ikke", "sist sett", "sidst set", "sist kontakt", "ikke rapportert", "ingen signal",
		"ei vastaa", "viimeksi nähty", "viimeisin yhteys", "ei signaalia", "nie odpowiada", "brak odpowiedzi", "ostatni kontakt", "ostatnio widzian",
		"brak sygnału", "neodpovídá", "neodpovedá", "poslední spojení", "posledné spojenie", "nekomunikuje", "bez signálu", "nem válaszol",
		"utolsó kapcsolat", "nincs jel", "nu răspunde", "ultima conexiune", "ultimul contact", "fără semnal", "yanıt vermiyor", "cevap vermiyor",
		"son bağlantı", "son görülme", "sinyal yok", "çevrimdışı", "ne odgovara", "zadnji kontakt", "posljednji kontakt", "zadnje javljanje",
		"se ne odziva", "zadnji stik", "не отговаря", "последна връзка", "не отвечает", "нет ответа", "последняя связь", "последний сеанс", "нет сигнала",
		"не выходит на связь", "не відповідає", "останній зв язок", "δεν αποκρίνεται", "τελευταία επικοινωνία", "neatbild", "pēdējais savienojums",
		"neatsako", "paskutinis ryšys", "ei vasta", "viimane ühendus", "no respon", "darrera connexió", "última connexió", "ez du erantzuten",
		"svarar ekki", "ddim yn ymateb", "níl ag freagairt", "laas gerapporteer", "reageer nie", "haijibu", "mara ya mwisho", "არ პასუხობს",
		"ბოლო კავშირი", "չի պատասխանում", "վերջին կապ", "प्रतिक्रिया नहीं", "अंतिम संपर्क", "ไม่ตอบสนอง", "không phản hồi", "ngoại tuyến",
		"tidak merespons", "terakhir terlihat", "tidak ada sinyal", "لا يستجيب", "آخر اتصال", "پاسخ نمی", "آخرین اتصال", "לא מגיב", "無回應", "无响应",
		"没有响应", "最后在线", "最后通信", "离线", "離線", "応答がありません", "応答なし", "最終通信", "最終接続", "オフライン", "응답 없음", "응답하지 않", "마지막 통신", "마지막 접속", "오프라인",
	},
}

// conceptMatcher finds every concept's words in the text as the tokenizer
// normalizes it: letters in lower case, every run of other characters one
// space.
var conceptMatcher = buildConceptMatcher()

func buildConceptMatcher() *literal.Matcher {
	var b literal.Builder
	// In the concepts' order, not the map's: the order of a needle's ids
	// is the order of the features, and training sums in that order.
	for c := concept(1); c < conceptCount; c++ {
		for _, w := range conceptWords[c] {
			b.Add(conceptNeedle(w), int32(c))
		}
	}
	return b.Build(literal.Exact)
}

// conceptNeedle normalizes w as the tokenizer feeds text to the matcher,
// and anchors it at a word start unless it begins with a character of a
// language written without spaces between words. A trailing space in w
// anchors its end too.
func conceptNeedle(w string) string {
	var sb strings.Builder
	space := false
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || isCJK(r) {
			if space && sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			space = false
			sb.WriteRune(unicode.ToLower(r))
		} else {
			space = true
		}
	}
	n := sb.String()
	if space {
		n += " "
	}
	first := []rune(n)[0]
	if !isCJK(first) {
		n = " " + n
	}
	return n
}
