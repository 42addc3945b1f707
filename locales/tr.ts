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
      "Oturum açın ya da 'Authorization: Bearer <belirteç>' olarak bir API anahtarı veya yönetici belirteci gönderin",
    forbidden: "Bunu yapmaya yetkiniz yok",
    not_found: "{path} adresinde bir şey bulunamadı",
    model_not_found: "'{model}' modeli yok ya da ona erişiminiz yok",
    model_unavailable: "'{model}' modelinin şu anda yanıt verebilecek bir kopyası yok",
    engine_error: "'{model}' modelini sunan motor başarısız oldu: {detail}",
    conflict: "{detail}",
    rate_limited:
      "Hız sınırına ulaşıldı: {level} düzeyinde {limit} ({used} / {max}). {reset} sonra sıfırlanır",
    budget_exceeded:
      "Bütçe tükendi: {level} düzeyinin {period} bütçesi ({spent} / {max} {unit}). Sıfırlanma: {reset}",
    too_many_unknown_keys:
      "Bu adresten çok fazla tanınmayan API anahtarı geldi. {reset} sonra yeniden deneyin",
    too_many_attempts: "Çok fazla oturum açma denemesi. {reset} sonra yeniden deneyin",
    invalid_credentials: "E-posta ya da parola doğru değil",
    csrf_failed: "Formun CSRF belirteci eksik ya da yanlış: sayfayı yenileyip yeniden deneyin",
    sign_in_unavailable: "{provider} ile oturum açma kullanılamıyor: {reason}",
    internal_error: "Bir iç hata oluştu. İstek kimliği: {requestId}",
  },
};
