// The cost of one operation, computed with its variables and argument defaults applied, before any
// resolver runs (a validation rule cannot do this: it never sees variables). The admission path
// (operation.ts) checks it for every transport, so all of them refuse the same work.
//
// Cost = how many fields the response may hold: a field costs 1; an object adds its selections; a
// list of a paged field (one with `first`, e.g. `comments(first: $n) { nodes {...} edges {...} }`)
// counts its items' cost `first` (or `last`) times, as coerced from variables (20 when neither is
// given), and at most the page size the domain allows; a list of objects by id (`nodes(ids:)`)
// counts one item per id. Other lists count one item: the response ceiling
// (response-ceiling.ts) bounds what they really hold. Federation's `_entities` costs, for each
// representation, what the Query field reading its type by id costs with the same selection
// (`restaurant(id:) { ... }`), and an operation's representations are bounded in number
// (FEDERATION_MAX_REPRESENTATIONS): a gateway's batch is refused whole, before any of it is read,
// rather than cut.
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type SelectionSetNode,
} from "graphql";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../domain/pagination.ts";
import { searchWork } from "./search-cost.ts";

type Variables = Record<string, unknown>;

/**
 * Most items a page may hold for a coerced `first` (the schema's default applied; null means the
 * domain's default). More than the maximum is refused by the domain before any list is read.
 */
export function pageItems(first: unknown): number {
  const asked = typeof first === "number" ? first : DEFAULT_PAGE_SIZE;
  return Math.min(Math.max(asked, 0), MAX_PAGE_SIZE);
}

function pageSize(field: GraphQLField<unknown, unknown>, args: Variables): number | undefined {
  return field.args.some((arg) => arg.name === "first") ? pageItems(args.first ?? args.last) : undefined;
}

/** Items of a list of objects by id (`nodes(ids:)`): one per id, at most the page size (more are refused). */
function idsListed(field: GraphQLField<unknown, unknown>, args: Variables): number | undefined {
  return field.args.some((arg) => arg.name === "ids") && Array.isArray(args.ids)
    ? Math.min(args.ids.length, MAX_PAGE_SIZE)
    : undefined;
}

class CostWalker {
  /** A fragment's cost depends only on the page size it is spread under; a document may spread one many times. */
  private readonly fragmentCosts = new Map<string, number>();

  /** Representations sent to `_entities` so far, all occurrences together. */
  private representations = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly variables: Variables,
    private readonly maxRepresentations: number,
  ) {}

  /** Whether a fragment on `condition` may apply to a value of `type` (an object of another type never is one). */
  private applies(type: GraphQLCompositeType, condition: GraphQLCompositeType): boolean {
    return !isObjectType(type) || !isObjectType(condition) || type === condition;
  }

  private included(node: FieldNode | { directives?: FieldNode["directives"] }): boolean {
    const skip = getDirectiveValues(GraphQLSkipDirective, node, this.variables);
    if (skip?.if === true) return false;
    const include = getDirectiveValues(GraphQLIncludeDirective, node, this.variables);
    return include?.if !== false;
  }

  /** `listItems`: how many items each list field of this selection holds (the enclosing field's page size). */
  selectionSet(type: GraphQLCompositeType, set: SelectionSetNode, listItems: number): number {
    let cost = 0;
    for (const selection of set.selections) {
      try {
        if (!this.included(selection)) continue;
      } catch {
        continue; // a bad @skip/@include argument fails the whole operation before any resolver
      }
      if (selection.kind === Kind.FIELD) cost += this.field(type, selection, listItems);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : type;
        if (on && isCompositeType(on) && this.applies(type, on))
          cost += this.selectionSet(isObjectType(type) ? type : on, selection.selectionSet, listItems);
      } else {
        const on = this.fragments.get(selection.name.value)?.typeCondition.name.value;
        const condition = on ? this.schema.getType(on) : undefined;
        if (!condition || !isCompositeType(condition) || this.applies(type, condition))
          cost += this.fragment(selection.name.value, listItems);
      }
    }
    return cost;
  }

  private fragment(name: string, listItems: number): number {
    const key = `${name}:${listItems}`;
    const known = this.fragmentCosts.get(key);
    if (known !== undefined) return known;
    const definition = this.fragments.get(name);
    const on = definition && this.schema.getType(definition.typeCondition.name.value);
    const cost =
      definition && on && isCompositeType(on) ? this.selectionSet(on, definition.selectionSet, listItems) : 0;
    this.fragmentCosts.set(key, cost);
    return cost;
  }

  private field(parent: GraphQLCompositeType, node: FieldNode, listItems: number): number {
    const name = node.name.value;
    if (name === "__typename") return 1;
    if (name.startsWith("__")) return 0; // introspection: bounded by the schema, allowed by its own setting
    const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    if (!field) return 0; // validation has refused it already
    if (name === "_entities" && parent === this.schema.getQueryType()) return this.entities(field, node);
    const type = getNamedType(field.type);
    // Searches cost the work their arguments cause (search-cost.ts), beyond the field's own unit.
    const own = 1 + searchWork(parent.name, name, () => getArgumentValues(field, node, this.variables));
    if (!node.selectionSet || !isCompositeType(type)) return own;
    let args: Variables;
    try {
      args = getArgumentValues(field, node, this.variables);
    } catch {
      return 0; // a field whose arguments do not coerce fails before its resolver: nothing below it runs
    }
    const items = isListType(getNullableType(field.type)) ? (idsListed(field, args) ?? listItems) : 1;
    return own + items * this.selectionSet(type, node.selectionSet, pageSize(field, args) ?? 1);
  }

  /** `_entities`: 1, and for each representation what `Query.<its type's read>(id:)` costs with this selection. */
  private entities(field: GraphQLField<unknown, unknown>, node: FieldNode): number {
    let representations: unknown;
    try {
      representations = getArgumentValues(field, node, this.variables).representations;
    } catch {
      return 0; // arguments that do not coerce: nothing runs
    }
    if (!Array.isArray(representations)) return 0;
    this.representations += representations.length;
    if (this.representations > this.maxRepresentations) throw tooManyRepresentations(this.maxRepresentations);
    const each = new Map<unknown, number>();
    let cost = 1;
    for (const representation of representations) {
      const name = (representation as { __typename?: unknown } | null)?.__typename;
      let one = each.get(name);
      if (one === undefined) {
        const type = typeof name === "string" ? this.schema.getType(name) : undefined;
        // An entity read by id as a root field: its own unit and its selection as that type.
        one = 1 + (isObjectType(type) && node.selectionSet ? this.selectionSet(type, node.selectionSet, 1) : 0);
        each.set(name, one);
      }
      cost += one;
    }
    return cost;
  }
}

/** The refusal of a gateway's batch that is too large: 400 BAD_USER_INPUT, before anything runs. */
function tooManyRepresentations(max: number): GraphQLError {
  return new GraphQLError(
    `An operation may send at most ${max} representations to \`_entities\` (FEDERATION_MAX_REPRESENTATIONS); ` +
      "ask the gateway for fewer entities at once.",
    { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } },
  );
}

/**
 * The operation's cost, or undefined when it cannot run (unknown operation, variables that do
 * not coerce): execution then refuses it before any resolver, with graphql-js's own message.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Variables | null | undefined,
  maxRepresentations = Infinity,
): number | undefined {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return undefined;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {}, { maxErrors: 1 });
  if (coerced.errors) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const walker = new CostWalker(schema, fragments, coerced.coerced, maxRepresentations);
  return walker.selectionSet(root, operation.selectionSet, 1);
}

/** The refusal: 400 with BAD_USER_INPUT (the codes a client may see are fixed), naming the cost and the limit. */
export function costLimitError(cost: number, maxCost: number): GraphQLError {
  const shown = Number.isSafeInteger(cost) ? String(cost) : `more than ${Number.MAX_SAFE_INTEGER}`;
  return new GraphQLError(
    `Operation cost ${shown} is above the limit of ${maxCost} (GRAPHQL_MAX_COST): each list counts its items once per ` +
      "page size (`first`, default 20), so ask for smaller pages or fewer nested lists.",
    { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } },
  );
}
