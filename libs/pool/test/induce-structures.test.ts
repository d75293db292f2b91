/**
 * draft-zhou §6.2.2 intent induction with the WordNet lexicon: the type and the name come from the evidence in the
 * fragments. Identifiers one per fragment are a string with their shape as pattern, several a list; clock times
 * are named by the word next to them (a deadline is `_by`); counts in words are numbers; proportions are an
 * aspect ratio; modifiers of one noun said by distinct clients are the alternatives of a choice; a removal is
 * named by what is removed. None of these examples is in a bench stream.
 */
import { describe, expect, it } from 'vitest';
import { said, candidate } from './induction-fixture';


describe('types and names from structured evidence (zhou §6.2.2)', () => {
  it('one identifier per fragment → a string key with the identifiers\' shape as pattern, named by the noun before it', () => {
    const c = candidate([said('my membership number is GYM-48213', 3), said('membership number GYM-99120 please', 3), said('use membership number GYM-10472', 2)]);
    expect(c.key.key_type).toBe('string');
    expect(c.key.pattern).toBe('^GYM-[0-9]{5}$');
    expect(c.key.key_name).toBe('membership_number');
    expect(c.key.enum).toBeUndefined();
  });

  it('seven digits or more are an identifier, not a count; scrubbed personal data is one too, with no pattern and no value', () => {
    const parcel = candidate([said('parcel tracking number 88123409', 3), said('the tracking number is 99120384', 3), said('tracking number 77123409 please', 2)]);
    expect(parcel.key.key_type).toBe('string');
    expect(parcel.key.key_name).toBe('tracking_number');
    expect(parcel.key.pattern).toBe('^[0-9]{8}$');
    const callback = candidate([said('call me back at [phone]', 3), said('callback number [phone]', 3), said('my callback number is [phone]', 2)]);
    expect(callback.key.key_type).toBe('string');
    expect(callback.key.key_name).toBe('callback_number');
    expect(callback.key.pattern).toBeUndefined();
    expect(callback.values).toEqual([]);
  });

  it('several identifiers per fragment → a list of strings named <noun>_ids', () => {
    const c = candidate([said('ports GE-01 and GE-07 are flapping', 3), said('flapping ports GE-03, GE-11', 3), said('ports GE-05 GE-09 down', 2)]);
    expect(c.key.key_type).toBe('array');
    expect(c.key.items_type).toBe('string');
    expect(c.key.key_name).toBe('port_ids');
  });

  it('a clock time → a string with a HH:MM pattern; after "by" or "before" the key is a deadline named <verb>_by', () => {
    const wake = candidate([said('wake-up call at 06:15', 3), said('a wake-up call at 5:45 please', 3), said('wake-up call 07:30', 2)]);
    expect(wake.key.key_type).toBe('string');
    expect(wake.key.pattern).toBe('^([01][0-9]|2[0-3]):[0-5][0-9]$');
    expect(wake.key.key_name).toMatch(/_time$/);
    const deliver = candidate([said('deliver by 18:00', 3), said('please deliver it before 17:30', 3), said('must deliver by 16:15', 2)]);
    expect(deliver.key.key_name).toBe('deliver_by');
  });

  it('counts in words, compounds included, are integers: "seventy five chairs" is 75', () => {
    const c = candidate([said('seventy five chairs for the hall', 3), said('we need two hundred chairs', 3), said('forty chairs', 3)]);
    expect(c.key.key_type).toBe('integer');
    expect(c.key.key_name).toBe('chair_count');
    expect(c.values.map((v) => v.value)).toEqual(expect.arrayContaining([75, 200, 40]));
  });

  it('a count in a unit is <concept>_<unit>, pixels glued to the number included, the concept with its compound', () => {
    const banner = candidate([said('scale the banner to 1200px wide', 3), said('banner width 800 px please', 3), said('make the banner 1600 pixels wide', 3)]);
    expect(banner.key.key_type).toBe('integer');
    expect(banner.key.key_name).toBe('banner_px');
    const warranty = candidate([said('the boiler warranty runs 24 months', 3), said('boiler warranty of 36 months', 3), said('a boiler warranty, twelve months', 3)]);
    expect(warranty.key.key_name).toBe('boiler_warranty_months');
    expect(warranty.values.map((v) => v.value).sort()).toEqual([12, 24, 36]);
    // "an hour" is one hour; a unit is never one of a choice's values.
    const nap = candidate([said('a nap of an hour', 3), said('nap for two hours', 3), said('three hours nap please', 3)]);
    expect(nap.key.key_type).toBe('integer');
    expect(nap.key.key_name).toBe('nap_hours');
    expect(nap.values.map((v) => v.value).sort()).toEqual([1, 2, 3]);
  });

  it('proportions W:H, WxH or two numbers (a sanitised colon) → aspect_ratio, a string choice with a pattern', () => {
    const c = candidate([said('frame it 5x7', 3), said('a 5 7 frame please', 3), said('2:3 frame for the hallway', 3), said('2x3 frame', 2)]);
    expect(c.key.key_name).toBe('aspect_ratio');
    expect(c.key.key_type).toBe('string');
    expect(c.key.pattern).toBe('^[1-9][0-9]?:[1-9][0-9]?$');
    expect([...(c.key.enum ?? [])].sort()).toEqual(['2:3', '5:7']);
  });

  it('modifiers of one noun that distinct clients say are the choice, and that noun its head', () => {
    const c = candidate([said('a walnut desk for the study', 3), said('walnut desk please', 2), said('oak desk', 3), said('the oak desk again', 2), said('pine desk, cheap one', 3)]);
    expect(c.key.key_type).toBe('string');
    expect(c.key.key_name).toBe('desk_preference');
    expect([...(c.key.enum ?? [])].sort()).toEqual(['oak', 'pine', 'walnut']);
  });

  it('parts of the day are a time: the choice is named <head>_time, its head a noun even when its verb sense is commoner', () => {
    const c = candidate([said('a morning train please', 3), said('morning train if possible', 2), said('evening train', 3), said('the afternoon train works best', 3)]);
    expect(c.key.key_name).toBe('train_time');
    expect([...(c.key.enum ?? [])].sort()).toEqual(['afternoon', 'evening', 'morning']);
  });

  it('a restriction is <word>_only, whether "only" stands after the word or before it', () => {
    const c = candidate([said('decaf only please', 3), said('only decaf for me', 3), said('decaf only, late meeting', 3)]);
    expect(c.key.key_type).toBe('boolean');
    expect(c.key.key_name).toBe('decaf_only');
  });

  it('a removal is named by what is removed, not by where it is', () => {
    const c = candidate([said('remove the lamp posts from the street photo', 3), said('erase the lamp posts', 3), said('delete the lamp posts in the park shot', 2)]);
    expect(c.key.key_type).toBe('boolean');
    expect(c.key.key_name).toBe('lamp_post_removal');
    const stains = candidate([said('remove the yellow stains on the shirt', 3), said('erase those yellow stains', 3), said('delete yellow stains from the collar', 2)]);
    expect(stains.key.key_name).toBe('yellow_stain_removal');
  });
});
