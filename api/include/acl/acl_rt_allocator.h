/*
 * acl/acl_rt_allocator.h - the custom-allocator API of AscendCL.
 *
 * A program describes its own allocator (an object plus four callbacks) in
 * a desc and registers the desc on a stream; consumers on that stream look
 * it up with aclrtAllocatorGetByStream. Prototypes, typedefs and semantics
 * follow CANN exactly (shared fact sheet section 1).
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_
#define INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size,
                                               aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/**
 * @ingroup AscendCL
 * @brief Create an allocator description with every field unset.
 * @retval the new desc, or NULL when host memory runs out
 */
ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);

/**
 * @ingroup AscendCL
 * @brief Destroy an allocator description. Registrations made with it stay.
 * @param allocatorDesc [IN] desc to destroy
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);

/**
 * @ingroup AscendCL
 * @brief Bind the user's allocator object to a desc.
 * @param allocatorDesc [IN] desc
 * @param allocator [IN] user allocator object, passed back to every callback
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
                                                        aclrtAllocator allocator);

/**
 * @ingroup AscendCL
 * @brief Bind the alloc callback to a desc.
 * @param allocatorDesc [IN] desc
 * @param func [IN] callback returning a block handle
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                              aclrtAllocatorAllocFunc func);

/**
 * @ingroup AscendCL
 * @brief Bind the free callback to a desc.
 * @param allocatorDesc [IN] desc
 * @param func [IN] callback releasing a block
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                             aclrtAllocatorFreeFunc func);

/**
 * @ingroup AscendCL
 * @brief Bind the optional alloc-advise callback (alloc at a suggested address).
 * @param allocatorDesc [IN] desc
 * @param func [IN] callback
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(
    aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocAdviseFunc func);

/**
 * @ingroup AscendCL
 * @brief Bind the callback mapping a block handle to its device address.
 * @param allocatorDesc [IN] desc
 * @param func [IN] callback
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    aclrtAllocatorDesc allocatorDesc, aclrtAllocatorGetAddrFromBlockFunc func);

/**
 * @ingroup AscendCL
 * @brief Register a desc on a stream. A copy of the desc's fields is taken
 *        now; registering the same stream again replaces the earlier one.
 * @param stream [IN] stream (must not be NULL)
 * @param allocatorDesc [IN] desc with obj, alloc, free and getAddrFromBlock set
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream,
                                                    aclrtAllocatorDesc allocatorDesc);

/**
 * @ingroup AscendCL
 * @brief Look up the allocator registered on a stream. Every out-parameter
 *        except allocatorDesc may be NULL and is then skipped.
 * @param stream [IN] stream
 * @param allocatorDesc [OUT] the desc handle given to aclrtAllocatorRegister
 * @param allocator [OUT] allocator object
 * @param allocFunc [OUT] alloc callback
 * @param freeFunc [OUT] free callback
 * @param allocAdviseFunc [OUT] alloc-advise callback
 * @param getAddrFromBlockFunc [OUT] get-address callback
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(
    aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
    aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
    aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
    aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);

/**
 * @ingroup AscendCL
 * @brief Remove the allocator registered on a stream; success when none is.
 * @param stream [IN] stream (must not be NULL)
 * @retval ACL_SUCCESS The function is successfully executed.
 * @retval OtherValues Failure
 */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_ */
