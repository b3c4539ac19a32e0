// `ctx.services.instances`: looks up a WhatsApp instance (a row of `instancias_whatsapp`) by id, so
// flows pass only `instance_id` and the token is fetched when a gateway call is made.

export interface GatewayInstance {
  id: number;
  clinica_id: number;
  /** Base URL of the uazapi server, e.g. `https://acme.uazapi.com`. */
  server_url: string;
  /** Instance token (header `token`). A credential: never log, record or return it. */
  token: string;
}

export interface InstanceDirectory {
  /** The instance with this id, or undefined when there is none. */
  get(id: number): Promise<GatewayInstance | undefined>;
}
