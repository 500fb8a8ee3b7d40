import { parseXmlDocument, S3Error, XmlElement as ProtocolXmlElement } from '@ostore/s3/protocol';
import { LifecycleConfigurationError } from './errors';

/** One element of a parsed document: its children in order and its text content. */
export interface XmlElement {
  readonly name: string;
  readonly children: readonly XmlElement[];
  /** The element's own text, untrimmed (whitespace between child elements included). */
  readonly text: string;
}

/**
 * The root element of a request body, read by the project's one XML reader (`parseXmlDocument` of
 * `@ostore/s3/protocol`), so a lifecycle body is refused exactly where every other S3 body is:
 * anything not one well-formed element, a DOCTYPE or entity declaration, an entity XML does not
 * predefine (`&nbsp;`). Text mixed with child elements is MalformedXML too.
 */
export function parseXmlRoot(body: string | Uint8Array): XmlElement {
  const xml = typeof body === 'string' ? body : new TextDecoder().decode(body);
  if (xml.trim() === '') throw LifecycleConfigurationError.malformed('empty body');
  let root: ProtocolXmlElement;
  try {
    root = parseXmlDocument(xml);
  } catch (error) {
    if (!(error instanceof S3Error)) throw error;
    throw LifecycleConfigurationError.malformed(
      'not one well-formed element (or a DOCTYPE, or an entity XML does not define)',
    );
  }
  refuseMixedContent(root);
  return root;
}

function refuseMixedContent(element: XmlElement): void {
  if (element.children.length > 0 && element.text.trim() !== '') {
    throw LifecycleConfigurationError.malformed(`<${element.name}> mixes text with elements`);
  }
  element.children.forEach(refuseMixedContent);
}

/**
 * Reads the children of a container element against a schema: which names it may hold and which
 * of them may repeat. Unknown and repeated single elements are MalformedXML, as S3's schema
 * validation answers them.
 */
export class ElementReader {
  private readonly byName = new Map<string, XmlElement[]>();

  constructor(
    readonly element: XmlElement,
    allowed: readonly string[],
    repeatable: readonly string[] = [],
  ) {
    if (element.text.trim() !== '' && element.children.length === 0 && allowed.length > 0) {
      throw LifecycleConfigurationError.malformed(`<${element.name}> must hold elements, not text`);
    }
    for (const child of element.children) {
      if (!allowed.includes(child.name)) {
        throw LifecycleConfigurationError.malformed(`<${child.name}> is not allowed in <${element.name}>`);
      }
      const list = this.byName.get(child.name) ?? [];
      if (list.length > 0 && !repeatable.includes(child.name)) {
        throw LifecycleConfigurationError.malformed(
          `<${child.name}> appears more than once in <${element.name}>`,
        );
      }
      list.push(child);
      this.byName.set(child.name, list);
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  all(name: string): readonly XmlElement[] {
    return this.byName.get(name) ?? [];
  }

  one(name: string): XmlElement | undefined {
    return this.byName.get(name)?.[0];
  }

  /** The raw text of a leaf child, or undefined when absent. A child with elements is MalformedXML. */
  text(name: string): string | undefined {
    const child = this.one(name);
    if (child === undefined) return undefined;
    if (child.children.length > 0) {
      throw LifecycleConfigurationError.malformed(`<${name}> must hold text, not elements`);
    }
    return child.text;
  }

  required(name: string): string {
    const value = this.text(name);
    if (value === undefined) {
      throw LifecycleConfigurationError.malformed(`<${this.element.name}> needs <${name}>`);
    }
    return value;
  }
}
