/** What an element is built with: any of its properties (`onclick`, `hidden`, `value`…), and `style` as CSS text. */
export type ElementProps<Tag extends keyof HTMLElementTagNameMap> = Partial<Omit<HTMLElementTagNameMap[Tag], "style">> & { style?: string };

/** What goes inside an element: another element, or text ("" for nothing). */
export type Child = Node | string;

/** Builds an element: its properties assigned as given, then its children appended. */
export function el<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  props: ElementProps<Tag> = {},
  ...children: Child[]
): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const child of children) node.append(child);
  return node;
}

/** Stable handles for browser tests: sets the element's data-testid and returns it. */
export function testid<Element extends HTMLElement>(node: Element, id: string): Element {
  node.dataset.testid = id;
  return node;
}

/** An element of the page's own markup (dashboard-page.ts), which is always there. */
export function byId<Element extends HTMLElement = HTMLElement>(id: string): Element {
  return document.getElementById(id) as Element;
}

/**
 * Makes `parent`'s children exactly `children`, in order, without detaching a
 * child that stays: a node taken out of the page loses its focus, and the
 * person typing into it their next keystrokes. Keep the order of staying
 * children as it was, or one of them has to move.
 */
export function keepChildren(parent: HTMLElement, children: readonly Node[]): void {
  const wanted = new Set(children);
  for (const child of [...parent.childNodes]) if (!wanted.has(child)) parent.removeChild(child);
  children.forEach((child, index) => {
    const there = parent.childNodes[index];
    if (there !== child) parent.insertBefore(child, there ?? null);
  });
}
