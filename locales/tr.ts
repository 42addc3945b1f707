import type { Messages } from "./mod.ts";

/** Turkish. The type forces every key the English locale has. */
export const tr: Messages = {
  errors: {
    invalid_json: "İstek gövdesi geçerli bir JSON değil: {detail}",
    invalid_request: "İstek geçerli değil: {detail}",
    body_too_large: "İstek gövdesi {limit} baytlık sınırdan büyük",
    missing_api_key: "API anahtarı verilmedi. 'Authorization: Bearer <anahtar>' olarak gönderin",
    invalid_api_key: "API anahtarı geçerli değil, süresi dolmuş ya da iptal edilmiş",
    unauthorized:
      "Geçerli bir yönetici belirteci gerekli. 'Authorization: Bearer <belirteç>' olarak gönderin",
    forbidden: "Bunu yapmaya yetkiniz yok",
    not_found: "{path} adresinde bir şey bulunamadı",
    model_not_found: "'{model}' modeli yok ya da ona erişiminiz yok",
    model_unavailable: "'{model}' modelinin şu anda yanıt verebilecek bir kopyası yok",
    engine_error: "'{model}' modelini sunan motor başarısız oldu: {detail}",
    conflict: "{detail}",
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
  },
};
