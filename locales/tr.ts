import type { Messages } from "./mod.ts";
import { portalTr } from "./portal_tr.ts";

/** Turkish. The type forces every key the English locale has. */
export const tr: Messages = {
  errors: {
    invalid_json: "İstek gövdesi geçerli bir JSON değil: {detail}",
    invalid_request: "İstek geçerli değil: {detail}",
    body_too_large: "İstek gövdesi {limit} baytlık sınırdan büyük",
    missing_api_key: "API anahtarı verilmedi. 'Authorization: Bearer <anahtar>' olarak gönderin",
    invalid_api_key: "API anahtarı geçerli değil, süresi dolmuş ya da iptal edilmiş",
    unauthorized:
      "Oturum açın ya da 'Authorization: Bearer <belirteç>' olarak bir API anahtarı veya yönetici belirteci gönderin",
    forbidden: "Bunu yapmaya yetkiniz yok",
    not_found: "{path} adresinde bir şey bulunamadı",
    model_not_found: "'{model}' modeli yok ya da ona erişiminiz yok",
    model_unavailable: "'{model}' modelinin şu anda yanıt verebilecek bir kopyası yok",
    model_starting: "'{model}' modeli henüz hazır değil ({phase}); biraz sonra yeniden deneyin",
    model_stopped:
      "'{model}' modeli bir yönetici tarafından durduruldu; yeniden başlatmasını isteyin",
    unsupported_endpoint: "'{model}' modeli {endpoint} uç noktasını sunmuyor: {detail}",
    engine_error: "'{model}' modelini sunan motor başarısız oldu: {detail}",
    engine_stalled:
      "'{model}' modelini sunan motor {seconds} sn boyunca veri göndermedi; yanıt kesildi",
    request_backoff:
      "Bu anahtarın '{model}' modeline son {count} isteği motorun hata vermesine yol açtı ({detail}); anahtar {reset} boyunca modelden uzak tutuluyor: yeniden denemeden önce isteği düzeltin",
    queue_timeout:
      "'{model}' modelinin tüm kopyaları bekleme süresi dolana kadar meşguldü; biraz sonra yeniden deneyin",
    provider_rate_limited:
      "'{model}' modelini sunan dış sağlayıcının tüm anahtarları hız sınırında; biraz sonra yeniden deneyin",
    conflict: "{detail}",
    join_code_invalid:
      "Bu katılım kodu bu kümede bilinmiyor; 'llmgw ctl nodes join-code' ile yenisini oluşturun",
    join_code_used:
      "Bu katılım kodu zaten kullanıldı; 'llmgw ctl nodes join-code' ile yenisini oluşturun",
    join_code_expired:
      "Bu katılım kodunun süresi doldu; 'llmgw ctl nodes join-code' ile yenisini oluşturun",
    node_credential_invalid:
      "Düğümün kimlik bilgisi geçerli değil: düğüm kaldırıldı ya da hiç katılmadı. Yeni bir kodla yeniden katılın",
    node_not_found: "'{node}' adında bir düğüm yok",
    node_not_connected: "'{node}' düğümü bağlı değil",
    rate_limited:
      "Hız sınırına ulaşıldı: {level} düzeyinde {limit} ({used} / {max}). {reset} sonra sıfırlanır",
    tokens_rate_limited:
      "Hız sınırına ulaşıldı: {level} düzeyinde dakikada token ({used} / {max}; bu istek {need} kullanabilir). {reset} sonra sıfırlanır",
    parallel_limited:
      "Süren istek sayısı sınırda: {level} düzeyinde '{model}' için aynı anda en çok {max} ({used} sürüyor). Biri bitince yeniden deneyin",
    tokens_over_limit:
      "Bu istek {need} token kullanabilir (yaklaşık {prompt} istem ve en çok {output} yanıt); {level} düzeyindeki dakikada {max} token sınırını aşar, hiçbir zaman kabul edilemez: max_tokens en çok {fit} gönderin ya da istemi kısaltın",
    budget_exceeded:
      "Bütçe doldu: {level} düzeyinin {period} bütçesi ({spent} harcandı, {held} süren isteklere ayrıldı; sınır {max} {unit}; bu istek {need} gerektirebilir, max_tokens küçüldükçe daha az). Sıfırlanma: {reset}",
    too_many_unknown_keys:
      "Bu adresten çok fazla tanınmayan API anahtarı geldi. {reset} sonra yeniden deneyin",
    too_many_attempts: "Çok fazla oturum açma denemesi. {reset} sonra yeniden deneyin",
    invalid_credentials: "E-posta ya da parola doğru değil",
    csrf_failed: "Formun CSRF belirteci eksik ya da yanlış: sayfayı yenileyip yeniden deneyin",
    sign_in_unavailable: "{provider} ile oturum açma kullanılamıyor: {reason}",
    internal_error: "Bir iç hata oluştu. İstek kimliği: {requestId}",
    weights_source_invalid: "'{source}' ağırlık kaynağı geçerli değil: {detail}",
    weights_unresolvable: "'{source}' ağırlık kaynağı çözümlenemiyor: {detail}",
    weights_pickle_refused:
      "Pickle biçimindeki ağırlıklar yüklenirken kod çalıştırır: {file} reddedildi. Modelin safetensors ya da GGUF biçimini kullanın; dosyalar denetlendiyse ve başka biçimi yoksa modelde allow_pickle: true ayarlayın",
    weights_checksum_mismatch:
      "{file} sha256 {actual} ile geldi, ancak {publisher} bunun için {expected} yayımladı: reddedildi ve silindi",
    weights_checksum_conflict:
      "Bu düğümdeki {file} daha önce sha256 {actual} olarak denetlendi, ancak bu kaynak {expected} bekliyor: reddedildi (dosya tutuldu; başka bir model kullanıyor olabilir)",
    weights_no_space:
      "{source} indirmek için {dir} üzerinde {needed} daha gerekiyor, ancak yalnızca {free} boş",
    weights_fetch_failed: "{file} indirilemedi: {detail}",
    weights_not_local: "{path} konumundaki ağırlıklar bu düğümde yok",
    mcp_tool_not_found: "Bu anahtara '{tool}' adlı bir araç sunulmuyor",
    mcp_server_unavailable:
      "'{server}' MCP sunucusu art arda hatalar yüzünden devre dışı; {retry} sn sonra yeniden deneyin",
    mcp_call_failed: "'{tool}' aracı başarısız oldu: {detail}",
    mcp_authorization_needed:
      "'{server}' MCP sunucusu her kişi için kendi hesabıyla çalışır: {url} adresinde bir kez yetki verin, sonra yeniden çağırın",
    guardrail_unavailable:
      "'{policy}' koruma politikası bu isteği zamanında denetleyemedi ('{rule}' kuralı) ve denetleyemediğini reddediyor; biraz sonra yeniden deneyin",
    guardrail_blocked:
      "'{policy}' koruma politikası bu isteği engelledi ('{rule}' kuralı); engellenmemesi gerekiyorsa bir yöneticiye danışın",
    store_backup_external:
      "Depo PostgreSQL ({store}): yedeğini pg_dump ya da sunucunun kendi yedekleriyle alın",
    kb_unavailable: "Bilgi tabanları burada kullanılamıyor: {detail}",
    kb_import_failed: "'{document}' belgesi içe aktarılamadı: {detail}",
    scim_invalid_filter: "SCIM filtresi geçerli değil: {detail}",
    scim_invalid_path: "SCIM yolu geçerli değil: {detail}",
  },
  portal: portalTr,
};
