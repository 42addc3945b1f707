/**
 * The cluster settings' descriptions in Turkish, by setting key. The English ones are the
 * settings' own (server/wiring/config.ts); a new setting needs its line here too
 * (server/portal/setting_words_test.ts checks every listed setting has one).
 */
export const settingDescriptionsTr: Readonly<Record<string, string>> = {
  "listen": "HTTP dinleyicisinin bağlandığı adres (host:port)",
  "public_url":
    "İstemcilerin bu sunucuya ulaştığı, iletilerde gösterilen URL (boş: listen değerinden çıkarılır)",
  "log_level": "Yazılan en düşük önem düzeyi",
  "https":
    "tls.cert_file verilmediğinde istemci API'sini ve portalı kümenin kendi sertifikasıyla (DATA/tls/) HTTPS üzerinden sun",
  "tls.cert_file":
    "İstemci API'si ve portal için sertifika zinciri (PEM); tls.key_file ile birlikte HTTPS'i açar",
  "tls.key_file": "tls.cert_file için özel anahtar (PEM)",
  "allow_plain_http":
    "Geri döngü olmayan bir dinleme adresinde düz HTTP'ye izin ver (yalnızca TLS yapan bir vekil sunucunun arkasında)",
  "listener.header_timeout_ms":
    "Bir isteğin başlıklarının tümü ilk baytından sonra bu süre içinde gelmeli, yoksa bağlantı kapanır (ms)",
  "listener.idle_timeout_ms":
    "Sürmekte olan isteği olmayan bir bağlantı (yeni ya da bir yanıttan sonra açık tutulan) bu süreden sonra kapanır (ms)",
  "listener.body_min_rate_bytes_per_s":
    "listener.body_grace_ms geçtikten sonra ortalama bundan yavaş gelen istek gövdesi kesilir, saniyede bayt (0: alt sınır yok)",
  "listener.body_grace_ms":
    "En düşük hız uygulanmadan önce bir istek gövdesinin ne kadar sürebileceği (ms)",
  "listener.send_timeout_ms":
    "Bir istemciye yazma bundan uzun sürerse (yanıtından hiçbir şey okumuyorsa) bağlantı kapanır (ms)",
  "listener.max_connections_per_address":
    "Bir istemci adresinin aynı anda açık tutabileceği bağlantı sayısı; fazlası geldikçe kapanır (0: sınır yok; güvenilen vekillerde sınır yoktur)",
  "trusted_proxies":
    "X-Forwarded-For başlığı istemciyi adlandıran vekillerin adresleri ya da CIDR aralıkları, virgülle ayrılmış; adres başına her kuralda kullanılır (boş: hiçbirine inanılmaz)",
  "listener.proxy_protocol":
    "trusted_proxies bağlantılarının istemciyi adlandıran bir PROXY protokolü başlığıyla (v1 ya da v2) başlayıp başlamadığı: kapalı (hiç okunmaz, varsayılan), isteğe bağlı (gönderilirse okunur) ya da zorunlu (başlıksız olan kapanır); başka birinin bu başlıkla başlayan bağlantısı kapanır. Düz HTTP dinleyicisi gerekir (TLS'i vekil sonlandırır)",
  "shutdown_grace_ms":
    "SIGTERM geldiğinde süren isteklerin (akışlar dahil) kesilmeden önce bitmek için ne kadar süresi olduğu (ms)",
  "log_format":
    "Günlük satırlarının yazılışı: satır başına bir JSON nesnesi ya da logfmt anahtar=değer çiftleri",
  "metrics_listen":
    "Prometheus /metrics dinleyicisinin adresi (host:port; boş: yok). Genel ağın dışında tutun",
  "router.max_body_bytes": "/v1'in kabul ettiği en büyük istek gövdesi (bayt)",
  "router.first_byte_timeout_ms":
    "Vazgeçmeden önce bir motorun ilk baytının ne kadar bekleneceği (ms)",
  "router.queue_timeout_ms":
    "Bir isteğin, Retry-After ile 503 almadan önce yeri olan bir kopyayı ne kadar bekleyebileceği (ms)",
  "router.stream_idle_timeout_ms":
    "Motoru bu süre boyunca hiçbir şey göndermeyen akış bir hata olayıyla kesilir (ms; istemcinin okuma süresi sayılmaz)",
  "router.max_attempts":
    "Bir isteğin başarısız olmadan önce denenebileceği uç nokta sayısı (kopyalar, anahtarlar, yedek modeller)",
  "router.batch_share_percent":
    "Etkileşimli istekler de beklerken bekleyen toplu isteklere verilen boşalan yer payı",
  "responses.retention_days":
    "Saklanan bir /v1/responses yanıtının (previous_response_id'nin sürdürdüğü) kaç gün tutulduğu",
  "files.max_bytes": "/v1/files'ın kabul ettiği en büyük dosya (bayt)",
  "files.project_quota_bytes":
    "Bir projenin (ya da projesiz bir anahtarın) /v1/files içinde tutabileceği toplam dosya baytı",
  "batches.interactive_slots":
    "Toplu isteklerin her kopyada etkileşimli trafiğe bıraktığı yer sayısı: bir toplu satır yalnızca daha fazlası boş olan yere gönderilir",
  "batches.price_percent":
    "Bir /v1/batches satırının, modelin olağan fiyatının yüzde kaçı üzerinden ücretlendirildiği",
  "router.load_poll_interval_ms":
    "Her kopyanın motoruna yükünün ne sıklıkla sorulduğu (her okuma da bununla sınırlıdır, ms)",
  "router.breaker_failures": "Bir uç noktanın devre kesicisinin açıldığı art arda hata sayısı",
  "router.breaker_cooldown_ms":
    "Açık bir kesicinin, bir deneme isteğine izin vermeden önce istekleri uç noktasından ne kadar uzak tuttuğu (ms)",
  "router.prefix_min_chars":
    "En az bu uzunluktaki (karakter) istemler, öneklerini son gören kopyayı tercih eder",
  "router.prefix_index_size":
    "Önek yakınlığı için hatırlanan en fazla istem öneki bloğu (bellekte)",
  "router.session_ttl_ms":
    "İstek gelmeyen bir konuşmanın kopyasındaki yerini (bir yer payını) ne kadar koruduğu (ms)",
  "router.session_table_size": "Kopyası hatırlanan en fazla konuşma sayısı (bellekte)",
  "router.shared_sessions":
    "Her konuşmanın hangi kopyada olduğunu depoda tut; böylece her denetim düzlemi turlarını aynı kopyaya gönderir",
  "router.slot_keeper_engines":
    "Yerleri konuşma başına sabitlenen ve başkası aldığında diske kaydedilen motorlar (virgülle ayrılmış)",
  "usage.flush_interval_ms": "Kullanım satırlarının ne sıklıkla yazıldığı (ms)",
  "usage.retain_days":
    "Ham kullanım satırlarının tutulduğu gün sayısı (0: süresiz); kullanım özetlerinin dayandığı günlük toplamlar her durumda tutulur",
  "usage.batch_size": "Tek bir işlemde yazılan en fazla kullanım satırı",
  "auth.key_cache_ms":
    "Denetlenmiş bir API anahtarının depoya yeniden sorulmadan önce ne kadar hatırlandığı (ms)",
  "auth.unknown_keys_per_minute":
    "Bir istemci adresinin 429 almadan önce dakikada sunabileceği tanınmayan API anahtarı sayısı",
  "auth.session_ttl_ms": "Bir oturumun ne kadar sürdüğü (ms)",
  "auth.signup_open": "Kişilerin kendi hesaplarını açmasına izin ver (POST /auth/signup)",
  "engines.llama_server": "llama.cpp sunucu programı (PATH üzerindeki bir ad ya da bir yol)",
  "engines.ready_timeout_ms":
    "Bir motorun, başarısız sayılmadan önce modelini yüklemek için ne kadar süresi olduğu (ms)",
  "engines.sim_tokens_per_second": "Yerleşik benzetim motorunun hızı, saniyede belirteç",
  "engines.sim_slots":
    "Yerleşik benzetim motorunun aynı anda ürettiği istek sayısı; fazlası kuyruğunda bekler",
  "portal": "Tarayıcı portalını / adresinde sun",
  "cluster_listen":
    "Düğümlerin katılmak ve denetim kanallarını sürdürmek için bağlandığı TLS dinleyicisinin adresi (host:port; boş: yok)",
  "cluster_urls":
    "Düğümlerin bağlandığı, katılım kodlarına yazılan https URL'leri, virgülle ayrılmış (boş: cluster_listen değerinden çıkarılır)",
  "tls.names":
    "Denetim düzleminin sertifikasının ilk oluşturulduğunda yapıldığı adlar ve adresler, virgülle ayrılmış (boş: localhost, 127.0.0.1, ::1 ve bu makinenin adı)",
  "nodes.heartbeat_ms": "Ajanların ne sıklıkla yaşam sinyali gönderdiği (ms)",
  "nodes.lost_after_ms":
    "Bu süre boyunca hiçbir şey göndermeyen bağlı bir düğüm düşürülür (kanalı kapanır, ms)",
  "nodes.replace_after_ms":
    "Bir düğümün (ajan yeniden başlaması ya da çökmesi) kopyaları başka yere taşınmadan ve kayıp sayılmadan önce ne kadar yok olabileceği (ms); bu arada motorları sağlık denetimine yanıt verdikçe yönlendirmede kalır",
  "nodes.channel_idle_ms":
    "Denetim düzleminin bir düğümün kanalını yokladığı sessizlik süresi (ms)",
  "nodes.channel_answer_ms":
    "Kanal kapanmadan önce bir yoklamanın ne kadar yanıtsız kalabileceği (ms)",
  "nodes.join_code_ttl_ms":
    "--expires verilmediğinde bir katılım kodunun ne kadar geçerli olduğu (ms)",
  "limits.exchange_interval_ms":
    "Bu denetim düzleminin hız sınırı sayımlarının ne sıklıkla depoya gidip diğer denetim düzlemlerininkilerin geri geldiği (ms; 0: tek başına sayar)",
  "accounting.flush_interval_ms":
    "Bütçe sayaçlarının ve anahtarların son kullanım zamanlarının ne sıklıkla yazıldığı (ms)",
  "accounting.default_prompt_per_1k":
    "Kendi fiyatı olmayan modeller için 1.000 istem belirtecinin fiyatı (mikro birim)",
  "accounting.default_completion_per_1k":
    "Kendi fiyatı olmayan modeller için 1.000 yanıt belirtecinin fiyatı (mikro birim)",
  "accounting.default_cached_per_1k":
    "1.000 önbellekteki istem belirtecinin fiyatı (0: istem fiyatı, mikro birim)",
  "accounting.currency":
    "Her fiyatın, maliyetin ve bütçenin para birimi (ISO 4217 kodu); paranın olduğu her yerde gösterilir",
  "oidc.issuer": "OpenID Connect sağlayıcı URL'si (boş: tek oturum açma yok)",
  "oidc.client_id": "OpenID Connect istemci kimliği",
  "oidc.client_secret_file":
    "OpenID Connect istemci sırrını tutan dosya (boş: yalnızca PKCE kullanan genel istemci)",
  "oidc.redirect_url": "Sağlayıcıya kayıtlı geri dönüş URL'si (boş: PUBLIC_URL/auth/oidc/callback)",
  "oidc.scopes": "Sağlayıcıdan istenen kapsamlar",
  "oidc.groups_claim": "Kişinin gruplarını listeleyen kimlik belirteci alanı",
  "oidc.label": "Kişilere gösterilen sağlayıcı adı",
  "oidc.roles": "Rol → onu veren gruplar (yönetici, operatör, kiracı yöneticisi, üye, izleyici)",
  "oidc.memberships": "Grup → ağaçtaki yer: org:AD ya da team:KURULUŞ/EKİP",
  "weights.hf_endpoint": "hf: kaynaklarının sabitlendiği ve indirildiği Hugging Face uç noktası",
  "weights.hf_token_file":
    "Özel ya da erişimi kısıtlı depolar için Hugging Face belirtecini tutan dosya (boş: yok)",
  "mirror.dir": "Ağırlık yansısının dosyalarını tuttuğu yer (boş: DATA/mirror)",
  "on_demand.evict_after_idle_ms":
    "Bu süre boyunca istenmeyen isteğe bağlı bir kopya (en kısa ömrü geçtiyse) durdurulabilir (ms); canlı okunur",
  "on_demand.min_lifetime_ms":
    "Başlatılan isteğe bağlı bir kopya bundan önce çıkarılmaz, böylece iki model yükleme bedelini sırayla ödemez (ms); canlı okunur",
  "on_demand.request_wait_ms":
    "Hazır kopyası olmayan bir modele gelen isteğin, Retry-After ile 503 almadan önce birinin başlamasını ne kadar beklediği (ms)",
  "reconciler.interval_ms":
    "Uzlaştırıcının katalogu çalışanlarla ne sıklıkla karşılaştırdığı (her raporda da çalışır, ms)",
  "reconciler.drain_grace_ms":
    "Boşaltılan bir kopyanın yine de durdurulmadan önce isteklerini bitirmek için ne kadar süresi olduğu (ms)",
  "reconciler.failure_backoff_ms":
    "Bir kopya başlayamadıktan sonra model yeniden başlatılmadan önce geçen süre (ms)",
  "reconciler.startup_timeout_ms":
    "Bu süre boyunca ilerleme olmadan indiren ya da başlayan bir kopya başarısız sayılır (ms)",
  "mcp.call_timeout_ms":
    "Bir MCP araç çağrısının (ya da bir şirket sunucusunun araç listesinin) kesilmeden önce ne kadar sürebileceği (ms)",
  "mcp.max_bytes":
    "Bir MCP araç çağrısının en büyük argümanları ve geri iletilen en büyük yanıt (bayt)",
  "control.lease_ttl_ms":
    "Liderin kirasının yenilenmeden ne kadar sürdüğü (üçte birinde yenilenir); süresi dolunca bir yedek devralır (ms)",
  "control.id":
    "Bu denetim düzleminin lider kirasında ve /leader içindeki adı (boş: HOSTNAME:DATA_DIR)",
  "otel.endpoint":
    "İzler için OTLP/HTTP toplayıcısı, örneğin http://127.0.0.1:4318 (/v1/traces adresine JSON; boş: iz yok)",
  "otel.service_name": "Her aralıktaki service.name",
  "otel.sample_percent":
    "İstemci traceparent göndermediğinde izlenen isteklerin payı (gönderen izlenir)",
  "otel.batch_ms": "Aralıkların ne sıklıkla toplu olarak dışa aktarıldığı (ms)",
  "notify.webhooks":
    "Bildirimler için webhook URL'leri, virgülle ayrılmış (Slack biçimi için slack: önekini ekleyin; boş: yok)",
  "notify.secret_file":
    "Her bildirim gövdesinin imzalandığı sırrı tutan dosya (HMAC-SHA256, x-llmgw-signature başlığı)",
  "notify.quiet_ms":
    "Bir bütçe ya da sağlayıcı anahtarı olayı, tekrarlanmadan bu süre geçince biter; sonra yeniden bildirebilir (ms)",
  "notify.disk_low_bytes":
    "Boş alanı bundan az olan bir düğüm diski (ağırlıklar, motorlar) az sayılır (bayt)",
  "notify.attempts": "Bir webhook teslimi için vazgeçilmeden önceki deneme sayısı",
  "notify.backoff_ms":
    "Bir teslimin ilk yeniden denemesinden önceki bekleme; her denemede iki katına çıkar (ms)",
  "notify.queue_size": "Bekleyen en fazla teslim; ötesinde en eskileri atılır ve günlüğe yazılır",
  "router.cache.max_bytes":
    "Yanıt önbelleğinin bellekte tuttuğu en fazla bayt (tüm girdiler birlikte)",
  "router.cache.max_entry_bytes": "Önbelleğe alınan tek bir yanıtın en büyük boyutu, bayt",
  "router.cache.embedding_model":
    "Benzer soruları bulmak için soruları gömen model, ağ geçidinin kendi hesabına çağrılır (boş: yalnızca tam eşleşme)",
  "router.cache.similar_entries": "Benzer soru dizininde tutulan en fazla soru sayısı",
  "otel.resource_attributes":
    "İzlere eklenen kaynak öznitelikleri, anahtar=değer çiftleri virgülle ayrılmış (OTEL_RESOURCE_ATTRIBUTES gibi)",
  "auth.ldap.urls":
    "Sırayla denenen dizin sunucuları, virgülle ayrılmış: ldaps://host:636 ya da ldap://host:389 (StartTLS) (boş: dizinle oturum açma yok)",
  "auth.ldap.ca":
    "Dizinin sertifikalarını imzalayan CA: PEM metni ya da onu tutan bir dosya (boş: sistemin CA'ları)",
  "auth.ldap.allow_plain":
    "ldap:// sunucularının StartTLS olmadan kullanılmasına izin ver: parolalar ağda açık metin olarak geçer",
  "auth.ldap.bind_dn":
    "Dizinde arama yapan hizmet hesabı (bir DN ya da Active Directory'de kullanıcı@alan)",
  "auth.ldap.bind_password_file": "Hizmet hesabının parolasını tutan dosya",
  "auth.ldap.base_dn": "Kişilerin arandığı yer, ör. dc=example,dc=com",
  "auth.ldap.group_base_dn": "Grupların arandığı yer (boş: auth.ldap.base_dn)",
  "auth.ldap.user_filter":
    "Kimlerin oturum açabileceği: her kişinin uyması gereken bir LDAP süzgeci; uymayan kişi bir sonraki eşitlemede askıya alınır",
  "auth.ldap.login_attributes":
    "Bir kişinin oturum açma adının arandığı öznitelikler, virgülle ayrılmış",
  "auth.ldap.flavor": "Dizinin türü: auto, sunucunun kök DSE kaydını okur",
  "auth.ldap.create_accounts":
    "Bir dizin kişisinin ilk oturum açışında hesap oluştur (yoksa yalnızca önceden bağlanmış hesaplar)",
  "auth.ldap.sync_interval_ms":
    "Liderin dizini ne sıklıkla yeniden okuduğu (askıya alma, geri alma, roller), ms",
  "auth.ldap.timeout_ms": "Bir dizin sunucusunun yanıt için alabileceği en uzun süre, ms",
  "auth.ldap.label": "Kişilere gösterilen dizin adı",
  "auth.ldap.roles": "Rol → onu veren dizin grupları (bir grubun cn'i ya da DN'i), oidc.roles gibi",
  "auth.ldap.memberships": "Dizin grubu (cn ya da DN) → ağaçtaki yer: org:AD ya da team:ORG/TAKIM",
};
