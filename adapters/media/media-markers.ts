// Texts the agent receives instead of a conversion, in pt-BR (the leads' language). They say what
// arrived and that its content is unknown, so the agent can ask the lead instead of guessing.
import type { MediaKind } from './media-kind.js';

/** Per kind, the text the agent gets when a medium of that kind could not be converted. */
export const MEDIA_MARKERS: Readonly<Record<MediaKind, string>> = Object.freeze({
  audio: '[áudio recebido: não foi possível transcrever]',
  image: '[imagem recebida: não foi possível analisar o conteúdo]',
  video: '[vídeo recebido: não foi possível analisar o conteúdo]',
  document: '[documento recebido: não foi possível ler o conteúdo]',
});

/** A document type nothing here can read (e.g. .docx). */
export const UNSUPPORTED_DOCUMENT_MARKER = '[documento recebido em formato não suportado: não foi possível ler o conteúdo]';
/** Audio that transcribed to nothing. */
export const SILENT_AUDIO_MARKER = '[áudio recebido: sem fala reconhecível]';
