import type { Rule } from 'eslint';

export declare const noPlainObjectDictionary: Rule.RuleModule;
declare const plugin: { rules: { 'no-plain-object-dictionary': Rule.RuleModule } };
export default plugin;
