export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
