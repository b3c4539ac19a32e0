// Phone helpers: form input -> digits, Brazilian variants for matching, masking for logs.
export { normalizeFormPhone } from './normalize-form-phone.js';
export { brazilianVariants } from './brazilian-variants.js';
export { maskPhone } from './mask-phone.js';
export { leadErasure, phoneNeedles } from './erasure.js';
