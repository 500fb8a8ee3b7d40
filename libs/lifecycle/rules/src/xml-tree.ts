import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { LifecycleConfigurationError } from './errors';

/** One element of a parsed document: its children in order and its text content. */
export interface XmlElement {
  readonly name: string;
  readonly children: readonly XmlElement[];
  /** The element's own text, untrimmed (whitespace between child elements included). */
  readonly text: string;
}

type OrderedNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: true,
  trimValues: false,
  parseTagValue: false,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/**
 * The root element of a request body. Anything that is not one well-formed element is
 * MalformedXML; so is a DOCTYPE (no entity tricks), and text mixed with child elements.
 */
export function parseXmlRoot(body: string | Uint8Array): XmlElement {
  const xml = typeof body === 'string' ? body : new TextDecoder().decode(body);
  if (xml.trim() === '') throw LifecycleConfigurationError.malformed('empty body');
  if (/<!DOCTYPE/i.test(xml)) throw LifecycleConfigurationError.malformed('DOCTYPE is not allowed');
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw LifecycleConfigurationError.malformed(`not well-formed: ${valid.err.msg}`);
  const roots = toElements(parser.parse(xml) as OrderedNode[]);
  if (roots.length !== 1)
    throw LifecycleConfigurationError.malformed('the document must have one root element');
  return roots[0];
}

function toElements(nodes: readonly OrderedNode[]): XmlElement[] {
  const elements: XmlElement[] = [];
  for (const node of nodes) {
    const name = Object.keys(node).find((k) => k !== ':@');
    if (name === undefined || name === '#text') continue;
    const inner = (node[name] as OrderedNode[] | undefined) ?? [];
    const children = toElements(inner);
    const text = inner
      .filter((n) => Object.prototype.hasOwnProperty.call(n, '#text'))
      .map((n) => String(n['#text']))
      .join('');
    if (children.length > 0 && text.trim() !== '') {
      throw LifecycleConfigurationError.malformed(`<${name}> mixes text with elements`);
    }
    elements.push({ name: localName(name), children, text });
  }
  return elements;
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
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
