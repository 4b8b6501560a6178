export type * from './types.js';
export {
  ADMISSION_API_VERSION,
  ADMISSION_API_VERSION_V1BETA1,
  ADMISSION_KIND,
  ReviewValidationError,
  validateReview,
  type ReviewValidation,
} from './validate.js';
export { allowReply, denyReply, replyExtras, replyText, type ReplyExtras, type ReviewReply } from './response.js';
export { base64Portable, base64Utf8, decodeBase64Utf8 } from './base64.js';
export { boundWarnings, WARNING_ITEM_CHARS, WARNINGS_TOTAL_CHARS } from './warnings.js';
